import { realpathSync } from "node:fs";
import { resolve, sep } from "node:path";
import type { ThreadPointer, WorkflowPayload } from "@united-workforce/protocol";
import type { Store, UwfConfig } from "@united-workforce/store";
import type { EventStream } from "@united-workforce/util";
import type { Router } from "../moderator/router.js";

/**
 * What a run works with: the store, the moderator's reader, where its events go, and what the
 * caller gave it (its directory, config.yaml, the environment, the signal that stops it). One
 * per run: a fan-out's children run with one each, whose events name the parent.
 */
export interface RunContext {
  store: Store;
  router: Router;
  events: EventStream;
  /** The caller's directory: a relative command path in `--agent` resolves against it. */
  cwd: string;
  /** config.yaml, asked for only when a step runs (a bad agent key must not stop `show`). */
  config(): UwfConfig | Promise<UwfConfig>;
  /** The environment adapters start with (`.env` is added under it); also gives PATH. */
  env: Record<string, string | undefined>;
  signal: AbortSignal;
  /**
   * `uwf workflow test`: the recorded result of a script step with this role and assembled
   * prompt (its command and edge prompt), which the replay stores instead of running it again.
   */
  recordedScript?(
    role: string,
    assembledPrompt: string,
  ): Promise<{ output: Record<string, unknown>; body: string; from: unknown } | null>;
  /** How a run waits between retries (tests pass one that records and returns). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

/** Where a step with this edge `location` runs: relative to the thread's cwd. */
export function stepCwd(pointer: ThreadPointer, location: string | null): string {
  return location ? resolve(pointer.cwd, location) : pointer.cwd;
}

/**
 * Whether an edge into `role` writes `location` literally (no `{{…}}`): the workflow's own
 * choice of where the role runs, trusted wherever it points.
 */
export function isLiteralLocation(
  workflow: WorkflowPayload,
  role: string,
  location: string,
): boolean {
  return Object.values(workflow.graph).some((edges) =>
    Object.values(edges ?? {}).some(
      (edge) =>
        edge?.role === role &&
        edge.location !== undefined &&
        !edge.location.includes("{{") &&
        edge.location.trim() === location,
    ),
  );
}

/**
 * Where `cwd` really is, when that is outside `threadCwd` (both with their symbolic links
 * resolved), else null. A command runs in a directory rendered from inputs or outputs only
 * inside its thread's: otherwise `--input dir=../x` would choose which `./program` runs.
 */
export function leavesThread(threadCwd: string, cwd: string): string | null {
  const root = realOrResolved(threadCwd);
  const path = realOrResolved(cwd);
  const inside = path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
  return inside ? null : path;
}

export const RENDERED_LOCATION_HINT =
  "A location rendered from inputs or outputs must stay inside the thread's --cwd (no .., absolute path or symbolic link out of it) where commands run; write the location literally in the workflow to run elsewhere.";

/** `path` with its symbolic links resolved, or only normalised while it does not exist. */
function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * A step of an agent or a command begins: where it runs, when it began, and the `step.start`
 * event that says so (its number: the head's for a step that replaces it).
 */
export function startStep(
  run: Pick<RunContext, "events">,
  pointer: ThreadPointer,
  plan: { role: string; location: string | null; replaceHead: boolean },
  agent: string,
): { cwd: string; startedAtMs: number } {
  const cwd = stepCwd(pointer, plan.location);
  const startedAtMs = Date.now();
  run.events.emit("step.start", {
    thread: pointer.thread,
    role: plan.role,
    agent,
    stepNumber: plan.replaceHead ? pointer.steps : pointer.steps + 1,
    cwd,
    ...(pointer.title !== undefined && { title: pointer.title }),
  });
  return { cwd, startedAtMs };
}
