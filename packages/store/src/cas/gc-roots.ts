import { UwfError } from "@united-workforce/util";
import { Registry } from "../registry/registry.js";
import { ThreadStore } from "../threads/thread-store.js";

/**
 * Every hash the mutable state points to: each thread's head, start, workflow and fork origin,
 * and each registry entry's versions. An unreadable pointer or entry throws instead of being
 * skipped: skipping it would let gc delete the nodes it points to.
 */
export function collectGcRoots(home: string): string[] {
  const roots = new Set<string>();
  const threads = new ThreadStore(home);
  for (const { id, pointer, problem } of threads.list()) {
    if (pointer === null) {
      const file = threads.file(id);
      throw new UwfError("THREAD_CORRUPT", `gc refused: ${file}: ${problem}`, {
        hint: "nothing was deleted; fix or move away that thread file, then run gc again",
        details: { thread: id, file },
      });
    }
    roots.add(pointer.head);
    roots.add(pointer.start);
    roots.add(pointer.workflowHash);
    if (pointer.forkedFrom !== undefined) roots.add(pointer.forkedFrom);
  }
  const { entries, problems } = new Registry(home).scan();
  const [problem] = problems;
  if (problem !== undefined) {
    throw new UwfError("IO", `gc refused: ${problem.file}: ${problem.problem}`, {
      hint: "nothing was deleted; fix or move away that registry file, then run gc again",
      details: { file: problem.file },
    });
  }
  for (const entry of entries) {
    for (const item of entry.history) roots.add(item.hash);
  }
  return [...roots].sort();
}
