import { isHash, isPlainObject } from "@united-workforce/protocol";

import type { RegistryEntry } from "../api.js";

/** Parse `workflows/<name>.json`, or say what is wrong with it. */
export function parseEntry(
  text: string,
  name: string,
): { entry: RegistryEntry } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: text.trim() === "" ? "the file is empty" : "the content is not JSON" };
  }
  if (!isPlainObject(value)) {
    return { problem: "not a JSON object" };
  }
  const { name: stored, current, history } = value as Record<string, unknown>;
  if (stored !== name)
    return { problem: `it names workflow ${JSON.stringify(stored)}, not ${name}` };
  if (!isHash(current)) return { problem: "`current` is missing or not a CAS hash" };
  if (!Array.isArray(history) || history.length === 0)
    return { problem: "`history` is missing or empty" };
  for (const item of history) {
    if (
      item === null ||
      typeof item !== "object" ||
      !isHash(item.hash) ||
      typeof item.at !== "string"
    ) {
      return { problem: "`history` holds an item that is not { hash, at }" };
    }
  }
  if (history[0].hash !== current) return { problem: "`current` is not the newest history item" };
  return { entry: { name, current, history: history.map(({ hash, at }) => ({ hash, at })) } };
}
