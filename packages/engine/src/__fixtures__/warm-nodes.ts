import { createRequire } from "node:module";
import { join } from "node:path";
import { REPO_ROOT } from "@united-workforce/test-utils";
import type { WarmNode } from "../processes/warm-node.js";

// What bin/uwf.cjs calls for `thread exec`: it spawns bin/warm-node.cjs and leaves it in the slot.
const { startWarmNode } = createRequire(import.meta.url)(
  join(REPO_ROOT, "packages/cli/bin/warm-start.cjs"),
) as { startWarmNode(env: NodeJS.ProcessEnv): WarmNode | undefined };

const SLOT = Symbol.for("@united-workforce/warm-node");
const slot = globalThis as { [SLOT]?: WarmNode };

/**
 * Warm Node processes started as the bin starts them, and every one a run starts as it takes
 * one (its `restart`), so that a test can count them and end them all.
 */
export class WarmNodes {
  readonly started: WarmNode[] = [];

  /** Start one into the slot with `env` as uwf's environment. */
  start(env: NodeJS.ProcessEnv = process.env): WarmNode {
    const warm = startWarmNode(env);
    if (warm === undefined) throw new Error("no warm process was started");
    this.#track(warm);
    return warm;
  }

  /** What the slot holds now. */
  get inSlot(): WarmNode | undefined {
    return slot[SLOT];
  }

  /** Empty the slot and kill every process started. */
  end(): void {
    delete slot[SLOT];
    for (const warm of this.started.splice(0)) {
      try {
        process.kill(warm.process.pid, "SIGKILL");
      } catch {
        // Already ended.
      }
    }
  }

  #track(warm: WarmNode): void {
    this.started.push(warm);
    const restart = warm.restart;
    warm.restart = () => {
      restart?.();
      const next = slot[SLOT];
      if (next !== undefined) this.#track(next);
    };
  }
}
