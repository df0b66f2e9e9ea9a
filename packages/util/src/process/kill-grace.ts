/** uwf → the process group of a step (an adapter, a script): documented in docs/adapter-protocol.md. */
const STEP_GRACE_MS = 2_000;

/**
 * How long a process group is given between SIGTERM and SIGKILL (and, once its leader has
 * exited, how long pipes a process that left the group still holds are read), by who ends whom.
 * The levels nest: whoever is stopped must be able to stop what it started, SIGKILL included,
 * within its own grace. An agent CLI, an ACP agent or a command an adapter starts runs in a
 * group of its own, which uwf's SIGKILL of the adapter's group does not reach: stopped within
 * half the step's grace, it is gone while the adapter still has the other half to report.
 */
export const KILL_GRACE = {
  /**
   * `uwf thread stop` / `cancel` → the exec holding the thread: time to end its step (the
   * step's grace, then as long again to drain its pipes) and to release the lease.
   */
  holder: 2 * STEP_GRACE_MS + 1_000,
  step: STEP_GRACE_MS,
  /** A step's process → a group it starts itself: an agent CLI, an ACP agent, a tool's command. */
  nested: STEP_GRACE_MS / 2,
} as const;
