import type { ThreadPointer } from "@united-workforce/protocol";

/**
 * Whether a fleet worker may claim the thread: it is idle (its head leads to a role to run; not
 * waiting for a human, a budget, a guard, a retry time or its fan-out; not completed, cancelled
 * or corrupt) and it is not a fan-out's child, which its parent's exec runs. The PostgreSQL
 * claim says the same in SQL.
 */
export function isRunnable(pointer: ThreadPointer, workflow?: string): boolean {
  return (
    pointer.status === "idle" &&
    pointer.suspended === null &&
    pointer.parent === undefined &&
    (workflow === undefined || pointer.workflow === workflow)
  );
}
