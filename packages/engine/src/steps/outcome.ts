import type { GuidanceNote, SuspendInfo } from "@united-workforce/protocol";
import type { UwfError } from "@united-workforce/util";
import type { VerifiedStep } from "./verify-step.js";

/**
 * What running one step of any kind (an agent, a command, a human's answer, a fan-out's join)
 * came to. A step kind never writes the thread's pointer: the state room applies its outcome
 * (`state/apply-outcome.ts`), in one write.
 */
export type StepOutcome =
  /** A step was stored and checked: the head moves to it. */
  | {
      kind: "stored";
      verified: VerifiedStep;
      agent: string;
      startedAtMs: number;
      /** The `thread steer` notes the agent got while it ran (its detail records them). */
      liveGuidance?: readonly GuidanceNote[];
    }
  /** The step failed: the head stays, the thread waits (`retryAfter`: a transient failure). */
  | { kind: "failed"; failure: UwfError; retryAfter?: string }
  /** Nothing runs now: the thread waits (for a person's answer, or its fan-out's children). */
  | { kind: "waits"; suspend: SuspendInfo }
  /** The run was interrupted while the step ran: nothing changes. */
  | { kind: "aborted" };

/** An outcome, with the agent the thread remembers from now on (one `--agent` given). */
export type AgentStepOutcome = StepOutcome & { rememberAgent?: string };
