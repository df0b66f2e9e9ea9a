import { UwfError } from "@united-workforce/util";
import type { RegistryStore, ThreadsStore } from "./api.js";

/**
 * Every hash the mutable state points to: each thread's head, start, workflow and fork origin,
 * and each registry entry's versions. An unreadable pointer or entry refuses gc instead of being
 * skipped: skipping it would let gc delete the nodes it points to.
 */
export async function collectGcRoots(
  threads: ThreadsStore,
  registry: RegistryStore,
): Promise<string[]> {
  const roots = new Set<string>();
  for await (const { id, pointer, problem } of threads.all()) {
    if (pointer === null) {
      const where = threads.locate(id);
      throw new UwfError("GC_REFUSED", `gc refused: ${where}: ${problem}`, {
        hint: "nothing was deleted; fix or remove that thread's pointer, then run gc again",
        details: { thread: id, file: where },
      });
    }
    roots.add(pointer.head);
    roots.add(pointer.start);
    roots.add(pointer.workflowHash);
    if (pointer.forkedFrom !== undefined) roots.add(pointer.forkedFrom);
  }
  const { entries, problems } = await registry.scan();
  const [problem] = problems;
  if (problem !== undefined) {
    throw new UwfError("GC_REFUSED", `gc refused: ${problem.location}: ${problem.problem}`, {
      hint: "nothing was deleted; fix or remove that registry entry, then run gc again",
      details: { file: problem.location },
    });
  }
  for (const entry of entries) {
    for (const item of entry.history) roots.add(item.hash);
  }
  return [...roots].sort();
}
