import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import {
  type AgentContext,
  AgentExit,
  type AgentRunResult,
  createAgent,
  storeBackends,
} from "@united-workforce/agent-kit/entry";
import { ADAPTER_TRANSIENT_EXIT } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { MockAnswer, MockScenario, MockStep } from "./scenario.js";

interface MockSession {
  answers: MockAnswer[];
  body: string;
  next: number;
}

/**
 * `uwf-mock --scenario <file>`: replays scripted outputs. The step to replay is the number of
 * steps already in the thread, so re-running a suspended step replays the same entry.
 */
export const mockAgent = createAgent({
  name: "uwf-mock",
  options: {
    // Not `required` nor `env` here: either flag names the file, and either beats the variable.
    scenario: {
      description: "the scenario file (YAML or JSON); else $UWF_MOCK_SCENARIO",
      valueName: "file",
    },
    "mock-data": {
      description: "the same as --scenario (upstream united-workforce's name for it)",
      valueName: "file",
    },
  },
  // The scenario reader and the renderer (the yaml library) load with a step, not for --help.
  run: async (ctx) => {
    const [{ loadScenario }, { renderAnswer }] = await Promise.all([
      import("./scenario.js"),
      import("./render.js"),
    ]);
    const file = scenarioPath(ctx);
    const scenario = loadScenario(file, ctx.home);
    const index = ctx.stepIndex;
    const own = scenario.steps[index];
    // Not scripted by position for this role: by role (`roles`), or as a fan-out's child
    // thread, whose step is not the parent's (`children`).
    const other =
      own?.role === ctx.role
        ? undefined
        : ((await byRole(scenario, ctx, file)) ??
          scenario.children?.find((c) => c.role === ctx.role));
    const step = other ?? own;
    if (!step) {
      const count = `${scenario.steps.length} step${scenario.steps.length === 1 ? "" : "s"}`;
      const byName = scenario.roles === undefined ? "" : ` and no entry under "roles"`;
      throw new AgentExit(
        1,
        `error: scenario ${file} has ${count}${byName}, but the thread already has ${index}: nothing is scripted for step ${index + 1} (role "${ctx.role}")`,
      );
    }
    if (step.role !== ctx.role) {
      throw new AgentExit(
        1,
        `error: scenario ${file} step ${index + 1} is for role "${step.role}", but uwf asked for role "${ctx.role}"`,
      );
    }
    if (step.wait_for !== undefined)
      await waitForFile(resolve(dirname(file), step.wait_for), ctx.signal);
    if (step.delay_ms) await sleep(step.delay_ms, ctx.signal);
    if (step.transient !== undefined) failTransiently(ctx, step, step.transient);
    if (step.stderr !== undefined)
      ctx.stderr(step.stderr.endsWith("\n") ? step.stderr : `${step.stderr}\n`);
    if (step.stdout !== undefined) throw new AgentExit(step.exit ?? 0, "", { stdout: step.stdout });
    if (step.exit !== undefined) throw new AgentExit(step.exit);
    const session: MockSession = { answers: answersOf(step), body: step.body ?? "", next: 1 };
    return {
      text: renderAnswer(session.answers[0]!, session.body),
      session,
      // The model uwf asked for (the agent's `model`), recorded so a test can see it arrived.
      detail: { model: ctx.model ?? "mock", scenario: file, scenarioStep: index },
      ...(step.usage ? { usage: step.usage } : {}),
    };
  },
  continue: async (_ctx, session): Promise<AgentRunResult> => {
    const { renderAnswer } = await import("./render.js");
    const state = session as MockSession;
    const answer = state.answers[Math.min(state.next, state.answers.length - 1)]!;
    return { text: renderAnswer(answer, state.body), session: { ...state, next: state.next + 1 } };
  },
});

/**
 * The `roles:` entry for this step: under `role[item]` for a fan-out's child of that item,
 * else under `role`. One entry answers every visit; a list, the role's visits in the thread in
 * order (past its end is an error). Undefined when `roles` has no key for the role.
 */
async function byRole(
  scenario: MockScenario,
  ctx: AgentContext,
  file: string,
): Promise<MockStep | undefined> {
  if (scenario.roles === undefined) return undefined;
  const item = ctx.pointer.parent?.index;
  const key = [...(item === undefined ? [] : [`${ctx.role}[${item}]`]), ctx.role].find((k) =>
    Object.hasOwn(scenario.roles!, k),
  );
  if (key === undefined) return undefined;
  const entries = scenario.roles[key]!;
  if (!Array.isArray(entries)) return entries;
  const visit = entries.length === 1 ? 0 : await earlierVisits(ctx);
  const entry = entries[visit];
  if (entry === undefined) {
    throw new AgentExit(
      1,
      `error: scenario ${file} has ${entries.length} entries under roles.${key}, but this is visit ${visit + 1} of role "${ctx.role}" in the thread`,
    );
  }
  return entry;
}

/** How many steps of this role the chain has before this one. */
async function earlierVisits(ctx: AgentContext): Promise<number> {
  const [{ walkBack }, store] = await Promise.all([
    import("@united-workforce/engine"),
    import("@united-workforce/store"),
  ]);
  const options = store.storeOptionsFrom(ctx.home, store.readConfig(ctx.home), ctx.env);
  const opened = await store.openStore({ ...options, backends: storeBackends });
  try {
    let visits = 0;
    const head = ctx.head === ctx.startHash ? null : ctx.head;
    for await (const { step } of walkBack(opened.cas, head)) if (step.role === ctx.role) visits++;
    return visits;
  } finally {
    await opened.close();
  }
}

/**
 * Count this try of the entry in `$UWF_HOME/mock/<thread>-<step>.tries`; while fewer than
 * `failures` tries failed, fail this one as a rate-limited agent would (exit 75).
 */
function failTransiently(ctx: AgentContext, step: MockStep, failures: number): void {
  const folder = join(ctx.home, "mock");
  const file = join(folder, `${ctx.thread}-${ctx.stepIndex}.tries`);
  const failed = existsSync(file) ? Number(readFileSync(file, "utf8")) || 0 : 0;
  if (failed >= failures) return;
  mkdirSync(folder, { recursive: true });
  writeFileSync(file, String(failed + 1));
  const wait = step.retry_after === undefined ? "" : `\nretry-after: ${step.retry_after}`;
  throw new AgentExit(
    ADAPTER_TRANSIENT_EXIT,
    `rate limited (HTTP 429; scripted transient failure ${failed + 1} of ${failures})${wait}`,
  );
}

/** `--scenario`, `--mock-data` (its upstream name) or `$UWF_MOCK_SCENARIO`: exactly one file. */
function scenarioPath(ctx: AgentContext): string {
  const { scenario, "mock-data": mockData } = ctx.options;
  if (typeof scenario === "string" && typeof mockData === "string" && scenario !== mockData) {
    throw new UwfError(
      "USAGE",
      `--scenario ${scenario} and --mock-data ${mockData} name two files`,
      {
        hint: "--mock-data is another name for --scenario: pass one of them.",
      },
    );
  }
  const given = typeof scenario === "string" ? scenario : mockData;
  const file = typeof given === "string" && given !== "" ? given : ctx.env.UWF_MOCK_SCENARIO;
  if (file === undefined || file === "") {
    throw new UwfError("USAGE", 'missing required option "--scenario" (or set UWF_MOCK_SCENARIO)', {
      hint: "Pass --scenario <file> (or --mock-data <file>), or set UWF_MOCK_SCENARIO.",
    });
  }
  return isAbsolute(file) ? file : resolve(ctx.cwd, file);
}

function answersOf(step: MockStep): MockAnswer[] {
  if (step.attempts) return step.attempts;
  return [step.output ?? {}];
}

/** Resolves once `path` exists: a test opens the gate when it has seen what it wanted to see. */
async function waitForFile(path: string, signal: AbortSignal | undefined): Promise<void> {
  while (!existsSync(path)) await sleep(20, signal);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    if (signal?.aborted) {
      reject(new Error("interrupted"));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error("interrupted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolvePromise();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
