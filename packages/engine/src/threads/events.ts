import type {
  ExecStepResult,
  FanoutFailureRule,
  SuspendKind,
  Usage,
} from "@united-workforce/protocol";

/**
 * What the engine tells its listeners while a thread runs. The CLI's progress lines, the process
 * log and the web view all subscribe to these; none re-derives state from files.
 */
export type EngineEvent =
  | {
      type: "step.started";
      thread: string;
      role: string;
      agent: string;
      /** 1 for the thread's first step. */
      stepNumber: number;
      cwd: string;
      atMs: number;
    }
  | { type: "adapter.output"; thread: string; role: string; line: string }
  | {
      type: "step.finished";
      thread: string;
      step: ExecStepResult;
      /** What the step's agent reported (tokens, cost); each figure null when not reported. */
      usage: Usage;
    }
  | { type: "step.failed"; thread: string; role: string; reason: string }
  | {
      /** The agent failed transiently (adapter exit 75); the step runs again after `delayMs`. */
      type: "step.retrying";
      thread: string;
      role: string;
      /** 1 for the first retry. */
      retry: number;
      maxRetries: number;
      delayMs: number;
      /** The adapter's last stderr line, e.g. "rate limited (HTTP 429)". */
      reason: string;
    }
  | { type: "suspended"; thread: string; role: string; reason: string; kind: SuspendKind }
  | {
      /** A thread's route fanned out: its children (ids in item order) run now. */
      type: "fanout.started";
      thread: string;
      /** The join role written once the children have ended. */
      role: string;
      children: string[];
      concurrency: number;
      failure: FanoutFailureRule;
    }
  | {
      /** One child of a fan-out stopped running in this exec (`thread` is the parent). */
      type: "fanout.child";
      thread: string;
      child: string;
      index: number;
      status: "completed" | "failed" | "waiting" | "pending";
      reason?: string;
    }
  | {
      /** Every child ended as the failure rule allows: the join step was written. */
      type: "fanout.joined";
      thread: string;
      role: string;
      /** The join step's number in the parent thread (its `#n`). */
      stepNumber: number;
      completed: number;
      failed: number;
    }
  | {
      type: "completed";
      thread: string;
      /** The rendered prompt of the `$END` edge that completed it, e.g. "Greeting delivered: …". */
      message: string | null;
    };

export type EngineListener = (event: EngineEvent) => void;
