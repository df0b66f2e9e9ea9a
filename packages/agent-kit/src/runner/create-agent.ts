import { renderTask, splitGuidance } from "@united-workforce/engine/adapter";
import {
  ExitCode,
  STATUS_FIELD,
  STEP_STORE_ENV,
  type StepPayload,
} from "@united-workforce/protocol";
import {
  type Cas,
  type CasBatch,
  openServedStore,
  openStore,
  readConfig,
  resolveModel,
  type StepStore,
  steerPollMs,
  storeOptionsFrom,
  validatorCacheDir,
} from "@united-workforce/store";
import { createEventStream, type EventStream, eventLogWriter } from "@united-workforce/util";
import { loadThreadContext, type ThreadContext } from "../context/load-context.js";
import type { Validator } from "../extract/extract.js";
import { SUSPEND_OUTPUT_SCHEMA } from "../extract/suspend.js";
import { composePrompt } from "../prompt/compose.js";
import { buildOutputFormatInstruction } from "../prompt/output-format.js";
import { readSessions, resumableSession, type SessionMap } from "../session/sessions.js";
import type { AgentArgs } from "./argv.js";
import { type AttemptsOutcome, type ExtractModel, runAttempts } from "./attempts.js";
import { buildDetail, type DetailDraft } from "./detail.js";
import { StepGuidance } from "./guidance.js";
import { storeBackends } from "./store-backends.js";
import type { AgentContext, AgentDefinition, AgentIo } from "./types.js";
import { sumUsage } from "./usage.js";

/**
 * Open the store and run one step (DESIGN §8–§9). `createAgent` (agent-main.ts) imports this
 * module only once the arguments ask for a step: the store, the chain reading, the prompt and
 * the extraction are no part of `--help` (DESIGN §14). Errors go back to its exit-code mapping.
 */
export async function runStoredStep(
  definition: AgentDefinition,
  args: AgentArgs,
  io: AgentIo,
  env: { home: string; say: (line: string) => void },
): Promise<number> {
  // Started by a uwf that is already gone: nobody will verify this step, so do nothing.
  io.signal?.throwIfAborted();
  const { home, say } = env;
  const store = await openStepStore(home, io.env);
  try {
    return await runStep(definition, args, io, { home, store, say });
  } finally {
    await store.close();
  }
}

/**
 * The store uwf serves this step (`UWF_STEP_STORE`: no connection of the adapter's own), else
 * the store config.yaml names, opened here. The variable is this adapter's alone: the agent and
 * the commands it runs do not inherit it.
 */
async function openStepStore(
  home: string,
  env: Record<string, string | undefined>,
): Promise<StepStore> {
  const served = env[STEP_STORE_ENV];
  delete env[STEP_STORE_ENV];
  if (served) return openServedStore(served, { validatorCacheDir: validatorCacheDir(home) });
  const options = storeOptionsFrom(home, readConfig(home), env);
  return openStore({ ...options, backends: storeBackends });
}

/** One step, in stages: prepare it from the chain, let the agent attempt it, store the result. */
async function runStep(
  definition: AgentDefinition,
  args: AgentArgs,
  io: AgentIo,
  env: { home: string; store: StepStore; say: (line: string) => void },
): Promise<number> {
  const startedAtMs = Date.now();
  const prepared = await prepareStep(definition, args, io, env);
  let outcome: AttemptsOutcome;
  try {
    outcome = await runAttempts({
      definition,
      ctx: prepared.ctx,
      exits: prepared.context.exits,
      validate: prepared.validate,
      extractModel: () => findExtractModel(env.home, io.env, definition.extractTimeoutMs),
    });
  } finally {
    // What the agent got is settled here: a note steered later waits for the next step.
    await prepared.guidance.stop();
  }
  if (!outcome.extraction.ok) return await storeFailure(prepared, outcome, io, env);
  const stored = await storeStep(prepared, outcome, env.store, startedAtMs);
  // Printed before it is logged: uwf starts checking the step on this line.
  io.stdout(`${JSON.stringify(stored)}\n`);
  prepared.events.emit("agent.step.stored", {
    ...prepared.about,
    step: stored.stepHash,
    status: stored.status,
    attempts: stored.attempts,
  });
  return ExitCode.ok;
}

/** Everything an attempt needs, read from the chain: nothing is written yet. */
interface PreparedStep {
  definition: AgentDefinition;
  args: AgentArgs;
  context: ThreadContext;
  ctx: AgentContext;
  guidance: StepGuidance;
  sessions: SessionMap;
  validate: Validator;
  /** The process log, and what every event of this step says: the thread, role and adapter. */
  events: EventStream;
  about: { thread: string; role: string; agent: string };
}

async function prepareStep(
  definition: AgentDefinition,
  args: AgentArgs,
  io: AgentIo,
  env: { home: string; store: StepStore; say: (line: string) => void },
): Promise<PreparedStep> {
  const { cas } = env.store;
  const context = await loadThreadContext(cas, env.store.threads, {
    thread: args.thread,
    role: args.role,
    historyQuota: args.historyQuota ?? definition.historyQuota,
    replaceHead: args.replaceHead,
  });
  const sessions = await readSessions(cas, context.head, context.startHash);
  const outputFormat = buildOutputFormatInstruction(context.exits);
  const prompt = composePrompt({
    outputFormat,
    workflowName: context.workflow.name,
    role: args.role,
    roleDefinition: context.roleDefinition,
    task: renderTask(context.start),
    history: context.history,
    edgePrompt: args.prompt,
  });
  const events = createEventStream(eventLogWriter(env.home));
  const about = { thread: args.thread, role: args.role, agent: definition.name };
  const guidance = new StepGuidance({
    read: () =>
      env.store.freshPointer
        ? env.store.freshPointer(args.thread)
        : env.store.threads.get(args.thread),
    given: splitGuidance(args.prompt).notes.length,
    pollMs: () => steerPollMs(readConfig(env.home)),
    ...(io.signal ? { signal: io.signal } : {}),
    onDelivered: (note) => {
      env.say(`guidance delivered to ${definition.name} (note ${note.rev})`);
      events.emit("agent.guidance.delivered", { ...about, rev: note.rev });
    },
    onReadError: (message) => env.say(`cannot look for guidance notes: ${message}`),
  });
  const ctx: AgentContext = {
    agent: definition.name,
    thread: args.thread,
    role: args.role,
    edgePrompt: args.prompt,
    prompt,
    outputFormat,
    cwd: io.cwd,
    home: env.home,
    env: io.env,
    model: args.model,
    options: args.options,
    passthrough: args.passthrough,
    schema: context.schema,
    workflow: context.workflow,
    roleDefinition: context.roleDefinition,
    start: context.start,
    startHash: context.startHash,
    head: context.head,
    pointer: context.pointer,
    stepIndex: context.stepIndex,
    history: context.history.entries,
    historyTruncated: context.history.truncated,
    resumeSession: await resumableSession(cas, sessions, {
      role: args.role,
      adapter: definition.name,
      cwd: io.cwd,
    }),
    guidance,
    progress: env.say,
    stderr: io.stderr,
    ...(io.signal ? { signal: io.signal } : {}),
  };

  const role = await cas.validator(context.roleDefinition.frontmatter);
  // The $SUSPEND schema's validator is made when an agent suspends, not for every step: it is
  // read from the validator cache and loads ajv's string-length helper (~3 ms). It is known to
  // the CAS without a write: it is stored with the step only when an agent suspends.
  let suspend: ReturnType<Cas["schemaValidator"]> | undefined;
  const validate: Validator = (candidate, kind) => {
    if (kind !== "suspend") return role(candidate);
    suspend ??= cas.schemaValidator(SUSPEND_OUTPUT_SCHEMA);
    return suspend.validate(candidate);
  };
  return { definition, args, context, ctx, guidance, sessions, validate, events, about };
}

function draftDetail(prepared: PreparedStep, outcome: AttemptsOutcome, failure?: string[]) {
  return buildDetail({
    adapter: prepared.definition.name,
    role: prepared.args.role,
    cwd: prepared.ctx.cwd,
    results: outcome.results,
    records: outcome.records,
    rawOutput: outcome.lastRawOutput,
    sessions: prepared.sessions,
    guidance: prepared.guidance.delivered,
    ...(failure ? { failure } : {}),
  });
}

/** The detail node and its turn nodes, added to a batch. */
async function putDetail(batch: CasBatch, cas: Cas, draft: DetailDraft): Promise<string> {
  const turns: string[] = [];
  for (const turn of draft.turns) turns.push(await batch.put(cas.builtin("turn"), turn));
  return batch.put(cas.builtin("stepDetail"), { ...draft.detail, turns });
}

/** No valid output: keep everything the agent said in a detail node, and say where it is. */
async function storeFailure(
  prepared: PreparedStep,
  outcome: AttemptsOutcome,
  io: AgentIo,
  env: { store: StepStore; say: (line: string) => void },
): Promise<number> {
  if (outcome.extraction.ok) throw new Error("storeFailure called with a valid output");
  const { cas } = env.store;
  const errors = outcome.extraction.errors;
  const modelErrors = outcome.records
    .filter((r) => r.kind === "extract-model")
    .flatMap((r) => r.errors.map((e) => `extract model: ${e}`));
  const batch = cas.batch();
  const detail = await putDetail(
    batch,
    cas,
    draftDetail(prepared, outcome, [...errors, ...modelErrors]),
  );
  await batch.flush();
  const attempts = outcome.records.length;
  prepared.events.emit("agent.output.invalid", { ...prepared.about, attempts, errors, detail });
  env.say(
    `error: the output for role "${prepared.args.role}" is invalid after ${attempts} attempt${attempts === 1 ? "" : "s"}:`,
  );
  for (const error of [...errors, ...modelErrors]) io.stderr(`  - ${error}\n`);
  env.say(
    `the raw output of every attempt is kept in detail node ${detail} (see: uwf cas get ${detail})`,
  );
  return ExitCode.invalid;
}

/** The step and everything it points to, written together: one round trip to the store. */
async function storeStep(
  prepared: PreparedStep,
  outcome: AttemptsOutcome,
  store: StepStore,
  startedAtMs: number,
): Promise<{
  stepHash: string;
  role: string;
  status: string;
  attempts: number;
  guidance?: number[];
}> {
  if (!outcome.extraction.ok) throw new Error("storeStep called with an invalid output");
  const { cas } = store;
  const { context, args, ctx } = prepared;
  const { output, body, suspend } = outcome.extraction;
  const usage = sumUsage([...outcome.results.map((r) => r.usage), outcome.extractUsage]);
  const attempts = outcome.records.length;
  const batch = cas.batch();
  const outputType = suspend
    ? batch.putSchema(SUSPEND_OUTPUT_SCHEMA)
    : context.roleDefinition.frontmatter;
  const outputHash = await batch.put(outputType, output);
  const bodyHash = batch.putText(body);
  const detailHash = await putDetail(batch, cas, draftDetail(prepared, outcome));
  const assembledPrompt = batch.putText(ctx.prompt);
  const completedAtMs = Date.now();
  usage.durationMs = completedAtMs - startedAtMs;
  const step: StepPayload = {
    start: context.startHash,
    prev: context.head === context.startHash ? null : context.head,
    role: args.role,
    output: outputHash,
    body: bodyHash,
    detail: detailHash,
    agent: prepared.definition.name,
    edgePrompt: args.prompt,
    assembledPrompt,
    cwd: ctx.cwd,
    startedAtMs,
    completedAtMs,
    usage,
    attempts,
  };
  const stepHash = await batch.put(cas.builtin("step"), step);
  await batch.flush();
  const status = String(output[STATUS_FIELD] ?? "");
  // The notes the agent got while it ran: uwf drops them from the thread (the detail says so).
  const live = prepared.guidance.delivered.map((note) => note.rev);
  return {
    stepHash,
    role: args.role,
    status,
    attempts,
    ...(live.length ? { guidance: live } : {}),
  };
}

/** `modelOverrides.extract`, else a model named `extract`; null when neither is configured. */
function findExtractModel(
  home: string,
  env: Record<string, string | undefined>,
  timeoutMs: number | undefined,
): ExtractModel | null {
  const config = readConfig(home);
  const alias = config.modelOverrides?.extract ?? (config.models?.extract ? "extract" : undefined);
  if (!alias) return null;
  return { alias, endpoint: resolveModel(config, alias, env), timeoutMs };
}
