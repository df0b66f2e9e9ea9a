import { addHomeDotenv } from "@united-workforce/engine";
import { ExitCode, exitCodeFor, STATUS_FIELD, type StepPayload } from "@united-workforce/protocol";
import {
  openStore,
  readConfig,
  resolveModel,
  type Store,
  storeOptionsFrom,
} from "@united-workforce/store";
import { createLogger, errorMessage, isUwfError, resolveHome } from "@united-workforce/util";
import { loadThreadContext } from "../context/load-context.js";
import type { Validator } from "../extract/extract.js";
import { SUSPEND_OUTPUT_SCHEMA } from "../extract/suspend.js";
import { composePrompt } from "../prompt/compose.js";
import { buildOutputFormatInstruction } from "../prompt/output-format.js";
import { type AgentArgs, parseAgentArgs, usageText } from "./argv.js";
import { type ExtractModel, runAttempts } from "./attempts.js";
import { buildDetail } from "./detail.js";
import { anySignal, starterPid, watchParent } from "./parent-watch.js";
import {
  type AgentContext,
  type AgentDefinition,
  AgentExit,
  type AgentIo,
  type AgentMain,
} from "./types.js";
import { sumUsage } from "./usage.js";

/**
 * Give an adapter the whole agent life cycle (DESIGN §8–§9): parse argv, load `.env`, read the
 * context from the chain, compose the prompt, run, extract and repair, store the step, and
 * print one JSON line last on stdout. The adapter only supplies `run` (and `continue`).
 */
export function createAgent(definition: AgentDefinition): AgentMain {
  return async (argv, io) => {
    const resolved = resolveIo(io);
    // UWF_ADAPTER_WATCH_PARENT=0 turns the watch off, e.g. to test what uwf does about orphans.
    const parent = watchParent(
      starterPid(resolved.env.UWF_ADAPTER_PARENT_PID),
      resolved.env.UWF_ADAPTER_WATCH_PARENT === "0" ? null : undefined,
    );
    const signal = anySignal([resolved.signal, parent.signal]);
    try {
      return await runAgent(definition, argv ?? process.argv.slice(2), { ...resolved, signal });
    } finally {
      parent.stop();
    }
  };
}

function resolveIo(io: Partial<AgentIo> = {}): AgentIo {
  return {
    stdout: io.stdout ?? ((text) => process.stdout.write(text)),
    stderr: io.stderr ?? ((text) => process.stderr.write(text)),
    // The process's own environment is extended in place so the agent's children see `.env`;
    // a caller's object is copied, never changed.
    env: io.env ? { ...io.env } : process.env,
    cwd: io.cwd ?? process.cwd(),
    ...(io.signal ? { signal: io.signal } : {}),
  };
}

async function runAgent(definition: AgentDefinition, argv: string[], io: AgentIo): Promise<number> {
  const say = (line: string): void => io.stderr(`${definition.name}: ${line}\n`);
  try {
    const home = resolveHome(io.env);
    addHomeDotenv(home, io.env);
    const specs = definition.options ?? {};
    const args = parseAgentArgs(argv, specs, io.env, {
      passthrough: definition.passthrough !== undefined,
    });
    if (args.help) {
      io.stdout(usageText(definition.name, specs, definition.passthrough));
      return ExitCode.ok;
    }
    // Started by a uwf that is already gone: nobody will verify this step, so do nothing.
    io.signal?.throwIfAborted();
    const store = await openStore(storeOptionsFrom(home, readConfig(home), io.env));
    try {
      return await runStep(definition, args, io, { home, store, say });
    } finally {
      await store.close();
    }
  } catch (error) {
    if (error instanceof AgentExit) {
      if (error.stdout !== undefined) io.stdout(error.stdout);
      if (error.message) say(error.message);
      return error.exitCode;
    }
    if (io.signal?.aborted) {
      say("interrupted");
      return ExitCode.interrupted;
    }
    if (isUwfError(error)) {
      say(`error: ${error.message}`);
      if (error.hint) say(`hint: ${error.hint}`);
      return exitCodeFor(error.code);
    }
    say(`error: ${errorMessage(error)}`);
    return ExitCode.error;
  }
}

/** One step: context from the chain, the prompt, the agent's attempts, then the stored step. */
async function runStep(
  definition: AgentDefinition,
  args: AgentArgs,
  io: AgentIo,
  env: { home: string; store: Store; say: (line: string) => void },
): Promise<number> {
  const { home, store, say } = env;
  const { cas } = store;
  const startedAtMs = Date.now();
  const threadContext = await loadThreadContext(cas, store.threads, {
    thread: args.thread,
    role: args.role,
    historyQuota: args.historyQuota ?? definition.historyQuota,
    replaceHead: io.env.UWF_REPLACE_HEAD === "1",
  });
  const log = createLogger(home, { agent: definition.name, thread: args.thread, role: args.role });
  const outputFormat = buildOutputFormatInstruction(threadContext.exits);
  const prompt = composePrompt({
    outputFormat,
    workflowName: threadContext.workflow.name,
    role: args.role,
    roleDefinition: threadContext.roleDefinition,
    task: threadContext.start.prompt,
    history: threadContext.history,
    edgePrompt: args.prompt,
  });
  const ctx: AgentContext = {
    agent: definition.name,
    thread: args.thread,
    role: args.role,
    edgePrompt: args.prompt,
    prompt,
    outputFormat,
    cwd: io.cwd,
    home,
    env: io.env,
    options: args.options,
    passthrough: args.passthrough,
    schema: threadContext.schema,
    workflow: threadContext.workflow,
    roleDefinition: threadContext.roleDefinition,
    start: threadContext.start,
    startHash: threadContext.startHash,
    head: threadContext.head,
    pointer: threadContext.pointer,
    stepIndex: threadContext.stepIndex,
    history: threadContext.history.entries,
    historyTruncated: threadContext.history.truncated,
    resumeSession: null,
    progress: say,
    stderr: io.stderr,
    ...(io.signal ? { signal: io.signal } : {}),
  };

  const roleSchema = threadContext.roleDefinition.frontmatter;
  // Known to the CAS without a write: it is stored with the step only when an agent suspends.
  const suspendSchema = cas.prepareSchema(SUSPEND_OUTPUT_SCHEMA).hash;
  const validators = {
    role: await cas.validator(roleSchema),
    suspend: await cas.validator(suspendSchema),
  };
  const validate: Validator = (candidate, kind) =>
    (kind === "suspend" ? validators.suspend : validators.role)(candidate);

  const outcome = await runAttempts({
    definition,
    ctx,
    exits: threadContext.exits,
    validate,
    extractModel: () => findExtractModel(home, io.env, definition.extractTimeoutMs),
  });
  const usage = sumUsage([...outcome.results.map((r) => r.usage), outcome.extractUsage]);
  const attempts = outcome.records.length;

  if (!outcome.extraction.ok) {
    const errors = outcome.extraction.errors;
    const modelErrors = outcome.records
      .filter((r) => r.kind === "extract-model")
      .flatMap((r) => r.errors.map((e) => `extract model: ${e}`));
    const detail = await cas.put(
      cas.builtin("detail"),
      buildDetail({
        adapter: definition.name,
        results: outcome.results,
        records: outcome.records,
        rawOutput: outcome.lastRawOutput,
        failure: [...errors, ...modelErrors],
      }),
    );
    log.error("agent.output.invalid", { attempts, errors, detail });
    say(
      `error: the output for role "${args.role}" is invalid after ${attempts} attempt${attempts === 1 ? "" : "s"}:`,
    );
    for (const error of [...errors, ...modelErrors]) io.stderr(`  - ${error}\n`);
    say(
      `the raw output of every attempt is kept in detail node ${detail} (see: uwf cas get ${detail})`,
    );
    return ExitCode.invalid;
  }

  // The step and everything it points to are written together: one round trip to the store.
  const { output, body, suspend } = outcome.extraction;
  const batch = cas.batch();
  if (suspend) batch.putSchema(SUSPEND_OUTPUT_SCHEMA);
  const outputHash = await batch.put(suspend ? suspendSchema : roleSchema, output);
  const bodyHash = batch.putText(body);
  const detailHash = await batch.put(
    cas.builtin("detail"),
    buildDetail({
      adapter: definition.name,
      results: outcome.results,
      records: outcome.records,
      rawOutput: outcome.lastRawOutput,
    }),
  );
  const assembledPrompt = batch.putText(prompt);
  const completedAtMs = Date.now();
  usage.durationMs = completedAtMs - startedAtMs;
  const step: StepPayload = {
    start: threadContext.startHash,
    prev: threadContext.head === threadContext.startHash ? null : threadContext.head,
    role: args.role,
    output: outputHash,
    body: bodyHash,
    detail: detailHash,
    agent: definition.name,
    edgePrompt: args.prompt,
    assembledPrompt,
    cwd: io.cwd,
    startedAtMs,
    completedAtMs,
    usage,
    attempts,
  };
  const stepHash = await batch.put(cas.builtin("step"), step);
  await batch.flush();
  const status = String(output[STATUS_FIELD] ?? "");
  log.info("agent.step.stored", { step: stepHash, status, attempts });
  io.stdout(`${JSON.stringify({ stepHash, role: args.role, status, attempts })}\n`);
  return ExitCode.ok;
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
