import { resolve } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
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
  /** How a run waits between retries (tests pass one that records and returns). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

/** Where a step with this edge `location` runs: relative to the thread's cwd. */
export function stepCwd(pointer: ThreadPointer, location: string | null): string {
  return location ? resolve(pointer.cwd, location) : pointer.cwd;
}
