import { isHash, isThreadId, normalizeId } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import type { CommandSpec } from "./command.js";

/**
 * Hashes and thread ids as handlers get them: full and upper case. A full id in any case is
 * only re-spelled; a prefix is looked up in the store (one shard folder or index range), so
 * commands given whole ids open nothing more than before.
 */
export async function resolveIds(
  spec: CommandSpec,
  args: string[][],
  options: Record<string, unknown>,
  optionKeys: readonly { key: string; type: string; keywords?: readonly string[] }[],
  store: () => Promise<Store>,
): Promise<void> {
  const resolveOne = async (type: "hash" | "thread", text: string): Promise<string> => {
    const id = normalizeId(text);
    if (type === "hash" ? isHash(id) : isThreadId(id)) return id;
    const { resolveHash, resolveThread } = await import("@united-workforce/store");
    return type === "hash" ? resolveHash(await store(), id) : resolveThread(await store(), id);
  };
  for (const [i, arg] of (spec.args ?? []).entries()) {
    if (arg.type !== "hash" && arg.type !== "thread") continue;
    const type = arg.type;
    const values = args[i] ?? [];
    for (let j = 0; j < values.length; j++) {
      if (!arg.keywords?.includes(values[j]!)) values[j] = await resolveOne(type, values[j]!);
    }
  }
  for (const { key, type, keywords } of optionKeys) {
    if (type !== "hash" && type !== "thread") continue;
    const value = options[key];
    if (typeof value !== "string" || keywords?.includes(value)) continue;
    options[key] = await resolveOne(type, value);
  }
}
