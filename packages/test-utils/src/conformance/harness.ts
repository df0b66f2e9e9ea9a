import {
  checkFullWorkflow,
  checkResume,
  checkUsage,
  type FullRun,
  httpError,
  hungModel,
  repairInSession,
  runFullWorkflow,
  toolWritesFile,
  transientRetry,
  transientSuspend,
} from "./cases.js";
import {
  type AdapterConformanceOptions,
  CONFORMANCE_CASES,
  type ConformanceCase,
  type ConformanceCaseName,
} from "./options.js";

/**
 * The adapter conformance cases (issue 7): any adapter runs the same cases through the built
 * `uwf` in a temp UWF_HOME, with a private fake model and a temp git repository as cwd.
 *
 * ```ts
 * describe("uwf-x conformance", () => {
 *   for (const c of adapterConformance({ … })) it.skipIf(c.skipped)(c.title, c.run, c.timeoutMs);
 * });
 * ```
 */
export function adapterConformance(options: AdapterConformanceOptions): ConformanceCase[] {
  const timeoutMs = options.timeoutMs ?? 30_000;
  // One run serves the full-workflow, resume and usage cases, which all look at it.
  let fullRun: Promise<FullRun> | null = null;
  const full = (): Promise<FullRun> => {
    fullRun ??= runFullWorkflow(options);
    return fullRun;
  };
  const bodies: Record<ConformanceCaseName, [string, () => Promise<void>]> = {
    "full-workflow": [
      "a full workflow with two roles completes, every step listed with usage",
      async () => checkFullWorkflow(await full()),
    ],
    "resume-session": [
      "a role revisited resumes its session: its next request carries its first exchange",
      async () => checkResume(await full()),
    ],
    "tool-writes-file": [
      "a tool call of the agent writes a file in the step's cwd",
      () => toolWritesFile(options),
    ],
    "repair-in-session": [
      "a reply without frontmatter is repaired in the same session",
      () => repairInSession(options),
    ],
    "http-400": [
      "HTTP 400 from the model suspends the thread with a clear reason (exit 4)",
      () => httpError(options, 400),
    ],
    "http-500": [
      "HTTP 500 with retries off suspends the thread (exit 4) after few requests",
      () => httpError(options, 500),
    ],
    "transient-retry": [
      "a rate-limited request (HTTP 429) is a transient failure: uwf runs the step again and it succeeds",
      () => transientRetry(options),
    ],
    "transient-suspend": [
      "a model that stays rate limited suspends the thread with kind retry and the API's wait",
      () => transientSuspend(options),
    ],
    "hung-model": [
      "a hung model times out: thread suspended, the adapter's processes gone",
      () => hungModel(options),
    ],
    usage: ["the usage the API reports is recorded", async () => checkUsage(await full())],
  };
  return CONFORMANCE_CASES.map((name) => {
    const [title, body] = bodies[name];
    const skipped = options.skip?.[name] ?? null;
    const caseTimeout =
      name === "full-workflow" || name === "resume-session" || name === "usage"
        ? timeoutMs * 2
        : name === "hung-model"
          ? timeoutMs + (options.hungTimeoutSeconds ?? 8) * 1000
          : timeoutMs;
    return {
      name,
      title: `${name}: ${title}${skipped ? ` (skipped: ${skipped})` : ""}`,
      skipped,
      timeoutMs: caseTimeout,
      run: body,
    };
  });
}
