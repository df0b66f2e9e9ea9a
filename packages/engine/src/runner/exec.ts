import type { ThreadExecDocument, ThreadPointer } from "@united-workforce/protocol";
import {
  type Lease,
  processIdentity,
  type RunLimits,
  workflowLimits,
} from "@united-workforce/store";
import { errorFields, sleepUnlessAborted } from "@united-workforce/util";
import type { RunContext } from "../steps/context.js";
import type { PlannedStep } from "../steps/planned-step.js";
import { takeThread } from "../threads/lease.js";
import { checkFirstStep } from "./next-step.js";
import { liftedGuardOf, planPoke, planResume, retryWait } from "./plans.js";
import { runSteps } from "./run-loop.js";
import { terminalReason, waitsOnFanout } from "./stop-reasons.js";
import { type ExecSummary, execDocument, execExitCode } from "./summary.js";
import type { RunRequest, RunResult } from "./types.js";

/**
 * Starts a background worker: `uwf thread exec <id> --worker <token> …` as a detached process,
 * whose pid it resolves with. The runner hands that process the lease.
 */
export type BackgroundStart = (token: string) => Promise<number>;

type ExecRequest = RunRequest & { wait?: boolean; worker?: string; background?: BackgroundStart };

/** `thread exec`, in the foreground, as a background worker, or handing the run to one. */
export async function execThread(
  run: RunContext,
  thread: string,
  request: ExecRequest,
): Promise<RunResult> {
  if (!request.worker) return execWithLease(run, thread, request, null, null);
  // A worker has no terminal: its error goes to the process log, where `thread join` and
  // `thread watch` find it and exit as the exec would have. It is logged while the worker still
  // holds the thread, so a reader that sees the thread released finds it there.
  let reported = false;
  const report = (error: unknown) => {
    if (reported) return;
    reported = true;
    const { code, message, hint, exitCode } = errorFields(error);
    run.events.emit("exec.error", { thread, code, message, hint, exitCode });
  };
  try {
    return await execWithLease(run, thread, request, report, null);
  } catch (error) {
    report(error);
    throw error;
  }
}

/**
 * Run the thread under its lease: `held` when the caller took it already (a fleet worker's
 * claim), else taken (or adopted by a background worker) here. Released whatever happens.
 */
export async function execWithLease(
  run: RunContext,
  thread: string,
  request: ExecRequest,
  reportError: ((error: unknown) => void) | null,
  held: Lease | null,
): Promise<RunResult> {
  // A background hand-off reads the thread first: a missing one takes no lease.
  if (request.background) await run.store.threads.get(thread);
  const lease =
    held ??
    (request.worker
      ? await run.store.leases.adopt(thread, request.worker)
      : await takeThread(run.store, thread, "uwf thread exec", run.events));
  if (request.background) return handOff(run, thread, request, request.background, lease);
  try {
    // Read once, under the lease: nothing can change it before the run starts.
    const pointer = await run.store.threads.get(thread);
    const waitFor = request.wait ? await retryWait(run.router, pointer) : null;
    if (waitFor !== null) await waitUntil(run, thread, waitFor);
    const summary = await runSteps(run, thread, {
      count: request.count ?? 1,
      agentFlag: request.agent,
      lease,
      limits: () => limitsOf(run, pointer, request.limits),
      // A wait may be long: the run reads the thread again after one.
      ...(waitFor === null ? { pointer } : { first: waitFor.plan }),
    });
    return await ended(run, summary);
  } catch (error) {
    reportError?.(error);
    throw error;
  } finally {
    await lease.release();
  }
}

/** `thread resume`: the step the thread stopped at (or `$START.resume`) runs, then the rest. */
export function resumeThread(
  run: RunContext,
  thread: string,
  request: RunRequest & { answer?: string | null },
): Promise<RunResult> {
  return runHeld(run, thread, "uwf thread resume", async (pointer, lease) => {
    const answer = request.answer?.trim() ? request.answer : null;
    return runSteps(run, thread, {
      count: request.count ?? 1,
      agentFlag: request.agent,
      lease,
      pointer,
      first: await planResume(run.router, pointer, answer),
      // A resumed run counts afresh: the human who resumes has seen what the last one spent.
      limits: () => limitsOf(run, pointer, request.limits),
      liftedGuard: liftedGuardOf(pointer),
    });
  });
}

/** `thread poke`: the head's role again, with more instructions, in the head's place. */
export function pokeThread(
  run: RunContext,
  thread: string,
  request: { prompt: string; agent?: string | undefined },
): Promise<RunResult> {
  return runHeld(run, thread, "uwf thread poke", async (pointer, lease) =>
    runSteps(run, thread, {
      count: 1,
      agentFlag: request.agent,
      lease,
      pointer,
      first: await planPoke(run.router, pointer, request.prompt),
    }),
  );
}

/**
 * Take the thread's lease (as `command`), read the thread under it, run `steps` on it, and say
 * how the run ended; the lease is released whatever happens.
 */
async function runHeld(
  run: RunContext,
  thread: string,
  command: string,
  steps: (pointer: ThreadPointer, lease: Lease) => Promise<ExecSummary>,
): Promise<RunResult> {
  await run.store.threads.get(thread);
  const lease = await takeThread(run.store, thread, command, run.events);
  try {
    return await ended(run, await steps(await run.store.threads.get(thread), lease));
  } finally {
    await lease.release();
  }
}

/**
 * What would stop a foreground exec before its first step is refused now, with the same error
 * and exit code (a worker has no terminal to say it on); then the lease goes to a detached
 * worker, and the thread is `running` from this moment.
 */
async function handOff(
  run: RunContext,
  thread: string,
  request: ExecRequest,
  start: BackgroundStart,
  lease: Lease,
): Promise<RunResult> {
  let pid: number;
  try {
    const pointer = await run.store.threads.get(thread);
    const waitFor = request.wait ? await retryWait(run.router, pointer) : null;
    // A parent waiting on its fan-out looks at its children again.
    const terminal =
      waitFor === null && !waitsOnFanout(pointer) ? terminalReason(pointer, request.agent) : null;
    if (terminal) {
      // Nothing would run: say so now rather than start a worker that does nothing.
      await lease.release();
      const document: ThreadExecDocument = {
        thread,
        status: pointer.status,
        stoppedBecause: terminal.because,
        message: terminal.message,
        steps: [],
      };
      return { summary: null, document, exitCode: execExitCode(document) };
    }
    await checkFirstStep(run, pointer, {
      agentFlag: request.agent,
      ...(waitFor === null ? {} : { first: waitFor.plan }),
    });
    await limitsOf(run, pointer, request.limits);
    pid = await start(lease.token);
    await lease.transfer({ ...lease.info().holder, ...processIdentity(pid) });
  } catch (error) {
    await lease.release();
    throw error;
  }
  const count = request.count ?? 1;
  run.events.emit("exec.background", { thread, worker: pid, count });
  const document: ThreadExecDocument = {
    thread,
    status: "running",
    stoppedBecause: "background",
    message: `running in the background (pid ${pid}); follow it with \`uwf thread watch ${thread}\`, or wait with \`uwf thread join ${thread}\``,
    steps: [],
    pid,
  };
  return { summary: null, document, exitCode: execExitCode(document) };
}

/**
 * How a run ended, as its document and exit code, told to the process log too (`exec.end`), so
 * that a later `thread join` or `watch` exits as this run did (130 after a Ctrl-C) instead of
 * guessing from the thread's state.
 */
async function ended(run: RunContext, summary: ExecSummary): Promise<RunResult> {
  const document = execDocument(summary, summary.pointer.status);
  if (summary.stoppedBecause === "completed" && summary.steps.length > 0) {
    const message = await run.router.endMessage(summary.pointer);
    if (message !== null) document.endMessage = message;
  }
  const exitCode = execExitCode(document);
  run.events.emit("exec.end", {
    thread: document.thread,
    status: document.status,
    stoppedBecause: document.stoppedBecause,
    steps: document.steps.length,
    message: document.message,
    exitCode,
  });
  return { summary, document, exitCode };
}

/**
 * A run's budget: config.yaml's `limits.<workflow>`, each replaced by the one given for this
 * run (the person running it decides, so a flag may raise a configured limit).
 */
async function limitsOf(
  run: RunContext,
  pointer: ThreadPointer,
  given: RunLimits | undefined,
): Promise<RunLimits> {
  return { ...workflowLimits(await run.config(), pointer.workflow), ...given };
}

/**
 * `exec --wait` of a thread that transient failures suspended: wait for its retry time (or the
 * run's interrupt). Said as an event: progress shows it, a follower of a background worker reads
 * it in the log, and `thread stop` ends the wait.
 */
async function waitUntil(
  run: RunContext,
  thread: string,
  waitFor: { retryAfter: string; plan: PlannedStep },
): Promise<void> {
  const ms = Date.parse(waitFor.retryAfter) - Date.now();
  if (ms <= 0) return;
  run.events.emit("exec.wait", { thread, role: waitFor.plan.role, retryAfter: waitFor.retryAfter });
  await sleepUnlessAborted(ms, run.signal);
}
