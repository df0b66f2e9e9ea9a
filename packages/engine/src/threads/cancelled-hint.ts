import { join, relative } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { shellQuote } from "@united-workforce/util";

/**
 * What to do with a cancelled thread's work: fork a step into a new thread, or, when it has no
 * step (a StartNode cannot be forked), start a new thread of the same workflow version.
 */
export function cancelledHint(pointer: ThreadPointer): string {
  const id = pointer.thread;
  if (pointer.steps > 0) {
    return `To continue its work, fork one of its steps: uwf step list ${id}, then uwf step fork <step>.`;
  }
  // A thread in its own git worktree started from the repository (the worktree may be gone).
  const { worktree } = pointer;
  const where = worktree
    ? `--cwd ${shellQuote(join(worktree.repo, relative(worktree.path, pointer.cwd)))} --worktree`
    : `--cwd ${shellQuote(pointer.cwd)}`;
  // The pointer does not hold the task and inputs (the StartNode does): name where they are
  // shown rather than read them on every path that gives this hint.
  return `It has no step to fork; to do its work, start a new thread of the same workflow: uwf thread start ${pointer.workflowHash} -p "<task>" ${where}, with its task and any inputs (--input name=value), which uwf thread read ${id} shows.`;
}
