import type { Store, UwfConfig } from "@united-workforce/store";
import type { EventStream } from "@united-workforce/util";
import { Router } from "../moderator/router.js";
import type { RunContext } from "../steps/context.js";

/** A run's context for the engine's own tests: what a Runner makes from its options. */
export function testRun(options: {
  store: Store;
  cwd: string;
  config: () => UwfConfig | Promise<UwfConfig>;
  env: Record<string, string | undefined>;
  events: EventStream;
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}): RunContext {
  return { ...options, router: new Router(options.store.cas) };
}
