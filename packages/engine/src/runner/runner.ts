import type {
  ExitCode,
  ThreadCancelDocument,
  ThreadCleanupDocument,
  ThreadPointer,
  ThreadStatus,
  WorkflowPayload,
} from "@united-workforce/protocol";
import type { Store, UwfConfig } from "@united-workforce/store";
import type { EventStream } from "@united-workforce/util";
import { Router } from "../moderator/router.js";
import { settle } from "../state/apply-outcome.js";
import type { RunContext } from "../steps/context.js";
import { type FanoutChildren, fanoutChildren } from "../steps/fanout/children.js";
import type { HumanAnswer } from "../steps/human-step.js";
import { stopHolder, waitForRelease } from "../threads/stop-holder.js";
import { deriveStatus, liveHolder } from "../threads/thread-view.js";
import { answerThread } from "./answer.js";
import { cancelThread, cleanUpThread } from "./cancel.js";
import { type BackgroundStart, execThread, pokeThread, resumeThread } from "./exec.js";
import { type LastRun, lastRun } from "./last-run.js";
import { execNext, type NextRequest, workThreads } from "./next.js";
import { checkFirstStep } from "./next-step.js";
import { type PendingStep, pendingStep } from "./plans.js";
import type { AnswerDocument, RunRequest, RunResult } from "./types.js";

/** What a runner works with; the caller (the CLI, the web view) owns each of these. */
export interface RunnerOptions {
  store: Store;
  /** The caller's directory: a relative command path in `--agent` resolves against it. */
  cwd: string;
  /** config.yaml, asked for only when a step runs (a bad agent key must not stop `show`). */
  config(): UwfConfig | Promise<UwfConfig>;
  /** The environment adapters start with (`.env` is added under it); also gives PATH. */
  env: Record<string, string | undefined>;
  /** Where every event of every run goes (the process log, live progress, the web view). */
  events: EventStream;
  /** Stops the runs: the running step's agent is stopped, the lease released, the head kept. */
  signal: AbortSignal;
  /** How runs wait between retries (tests pass one that records and returns). */
  sleep?(ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * The engine as use cases: one entry per thing a user does to a thread. Each takes the thread's
 * lease, plans, runs the steps (budgets and guards applied), moves the head through the one
 * state module, releases, and emits every event on the way. The CLI, the web view and whatever
 * starts runs next (webhooks, schedules, an MCP server, fleet workers) call these; none codes
 * the loop again.
 */
export class Runner {
  readonly store: Store;
  readonly #run: RunContext;

  constructor(options: RunnerOptions) {
    this.store = options.store;
    this.#run = { ...options, router: new Router(options.store.cas) };
  }

  // ─── runs ─────────────────────────────────────────────────────────────────────────────────

  /**
   * `thread exec`: run the thread's next steps. `wait`: a thread suspended after transient
   * failures waits for its retry time first. `worker`: a background worker adopts the lease
   * its starter made (and logs an error instead of printing it).
   */
  exec(
    thread: string,
    request: RunRequest & { wait?: boolean; worker?: string },
  ): Promise<RunResult> {
    return execThread(this.#run, thread, request);
  }

  /**
   * `thread exec --background`: what a foreground exec would refuse is refused now, with the
   * same error; then `start` starts a worker process with the lease's token, which this hands
   * the lease to. Returns at once.
   */
  background(
    thread: string,
    request: RunRequest & { wait?: boolean },
    start: BackgroundStart,
  ): Promise<RunResult> {
    return execThread(this.#run, thread, { ...request, background: start });
  }

  /**
   * `thread exec --next`: claim the oldest runnable thread that no live exec holds (of
   * `workflow` when given) and run it as `exec` would. Null when no thread is runnable.
   */
  execNext(request: NextRequest): Promise<RunResult | null> {
    return execNext(this.#run, request);
  }

  /**
   * `thread exec --next --wait`: a fleet worker that claims and runs threads until the signal
   * stops it, waiting (at most `pollMaxMs` between looks) while none is runnable. `ran` hears
   * each run; resolves with the worker's exit code (0 when stopped while it waited).
   */
  work(
    request: NextRequest & { pollMaxMs: number },
    ran: (result: RunResult) => void,
  ): Promise<ExitCode> {
    return workThreads(this.#run, request, ran);
  }

  /** `thread resume`: answer a suspended thread (or restart a completed one) and run on. */
  resume(thread: string, request: RunRequest & { answer?: string | null }): Promise<RunResult> {
    return resumeThread(this.#run, thread, request);
  }

  /** `thread poke`: run the head's role again with more instructions, replacing the head. */
  poke(
    thread: string,
    request: { prompt: string; agent?: string | undefined },
  ): Promise<RunResult> {
    return pokeThread(this.#run, thread, request);
  }

  /** `thread answer`: store a human's answer to the role that waits for one, and route on. */
  answer(thread: string, answer: HumanAnswer): Promise<AnswerDocument> {
    return answerThread(this.#run, thread, answer);
  }

  // ─── beside the runs ──────────────────────────────────────────────────────────────────────

  /** `thread cancel`: stop a running exec and archive the thread (and its unfinished children). */
  cancel(thread: string, options: { keepWorktree: boolean }): Promise<ThreadCancelDocument> {
    return cancelThread(this.#run, thread, options);
  }

  /** `thread cleanup`: remove the worktrees of a thread that ended, and its children's. */
  cleanup(thread: string): Promise<ThreadCleanupDocument> {
    return cleanUpThread(this.#run, thread);
  }

  /** `thread stop`: end the exec that holds the thread (its agent's whole group too). */
  async stop(thread: string): Promise<{ pid: number } | null> {
    await this.store.threads.get(thread);
    const stopped = await stopHolder(this.store, thread);
    if (stopped) this.#run.events.emit("thread.stop", { thread, holder: stopped.pid });
    return stopped;
  }

  /**
   * Wait until no live exec holds the thread (`timeoutMs` null: as long as it takes); false when
   * the wait ran out or was stopped.
   */
  waitForRelease(thread: string, timeoutMs: number | null): Promise<boolean> {
    return waitForRelease(this.store, thread, timeoutMs, this.#run.signal);
  }

  /**
   * `thread join` and `thread watch` after the wait: how the thread's last run ended, with the
   * exit code it had (or would have had in the foreground).
   */
  lastRun(pointer: ThreadPointer): LastRun {
    return lastRun(this.store.home, pointer);
  }

  // ─── what views ask ───────────────────────────────────────────────────────────────────────

  workflow(hash: string): Promise<WorkflowPayload> {
    return this.#run.router.workflow(hash);
  }

  /** What runs next on the thread (null: nothing does until someone acts). */
  next(pointer: ThreadPointer): Promise<PendingStep | null> {
    return pendingStep(this.#run.router, pointer);
  }

  /**
   * What would stop a run of `pointer` before its first step with `agent` (`--agent`): an
   * unknown agent, none configured, a route that fails. Nothing runs and nothing is written.
   */
  checkRun(pointer: ThreadPointer, agent: string | undefined): Promise<void> {
    return checkFirstStep(this.#run, pointer, { agentFlag: agent });
  }

  /** The children of the fan-out the thread's head leads to, or null. */
  fanout(pointer: ThreadPointer): Promise<FanoutChildren | null> {
    return fanoutChildren(this.#run, pointer);
  }

  /** The `$END` edge's rendered prompt of a completed thread, or null. */
  endMessage(pointer: ThreadPointer): Promise<string | null> {
    return this.#run.router.endMessage(pointer);
  }

  /** A thread's status as users see it: `running` while a live exec holds its lease. */
  async status(pointer: ThreadPointer): Promise<ThreadStatus> {
    return deriveStatus(pointer, await liveHolder(this.store, pointer.thread));
  }

  /**
   * Record what a new thread's head leads to when it is not another role (a fork of a step that
   * completed the thread, or asked a question).
   */
  settle(pointer: ThreadPointer): Promise<ThreadPointer> {
    return settle(this.#run, pointer);
  }
}
