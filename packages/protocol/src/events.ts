/**
 * The events uwf emits, one vocabulary for every reader (DESIGN §15). Each event has a JSON
 * Schema here and its TypeScript type is derived from it. The process log
 * (`$UWF_HOME/logs/<UTC day>.jsonl`) is one subscriber that writes exactly these events, one per
 * line, with an envelope (`level`, `pid`, `command`) around them; it is the channel between
 * processes, so live progress, `thread watch`, `thread join`, `log show -f` and the web view
 * (server and browser) read the same typed stream and check what they read against these
 * schemas.
 *
 * Like the documents, events may gain fields, never lose or rename one, and no schema forbids
 * extra keys. A field added after an event was first logged is optional here, so that a log
 * written by an earlier uwf still reads.
 */
import type { FromSchema } from "./from-schema.js";
import { FANOUT_FAILURE_RULES, usageSchema } from "./nodes.js";
import { isPlainObject } from "./plain-object.js";
import { matchesSchema } from "./schema-check.js";
import { hashSchema, isoTimeSchema, threadIdSchema } from "./string-schemas.js";
import { suspendInfoSchema, worktreeRemovalSchema } from "./threads.js";

const str = { type: "string" } as const;
const nullableStr = { type: ["string", "null"] } as const;
const int = { type: "integer" } as const;
const bool = { type: "boolean" } as const;
const strings = { type: "array", items: str } as const;
const hash = hashSchema;
const threadId = threadIdSchema;
/** An event's usage: as a step records it (each figure null when the agent did not say). */
const usage = {
  type: "object",
  required: usageSchema.required,
  properties: usageSchema.properties,
} as const;

type Properties = Record<string, object>;

/**
 * An event's schema: `event` (its name) and `ts` (when, ISO 8601 UTC) lead every event, then
 * its own fields, each required unless it is in `optional`.
 */
function event<
  const N extends string,
  const P extends Properties,
  const O extends Properties = Record<never, never>,
>(name: N, description: string, required: P, optional?: O) {
  return {
    type: "object",
    description,
    required: ["event", "ts", ...(Object.keys(required) as (keyof P & string)[])],
    properties: {
      event: { const: name },
      ts: isoTimeSchema,
      ...required,
      ...(optional ?? ({} as O)),
    },
  } as const;
}

/**
 * What every event of a thread's run carries: the thread, and for a fan-out's child the thread
 * that fanned out (so a reader following the parent follows the family).
 */
const run = { thread: threadId } as const;
const child = { parent: threadId } as const;

/** What removing a thread's git worktree did (`thread cancel`, `thread cleanup`). */
const worktreeRemoval = worktreeRemovalSchema.properties;

/** How a run ended, the same words `thread exec --format json` uses. */
export const STOPPED_BECAUSE = [
  "completed",
  "suspended",
  "count",
  "failed",
  "cancelled",
  "stopped",
  "background",
  "budget",
  "guard",
] as const;

// Long by design: the table of every event, one entry each, so the vocabulary reads in one place.
function build() {
  const schemas = {
    // ─── a step ─────────────────────────────────────────────────────────────────────────────
    "step.start": event(
      "step.start",
      "A step's agent (or command) starts; `stepNumber` is 1 for the thread's first step.",
      { ...run, role: str, agent: str, stepNumber: int, cwd: str },
      // `title` came with thread titles: progress names other threads (a fan-out's) by it.
      { ...child, title: str },
    ),
    "adapter.output": event(
      "adapter.output",
      "One line the step's adapter (or command) wrote on stderr.",
      { ...run, role: str, line: str },
      child,
    ),
    "step.done": event(
      "step.done",
      "The step was stored and the head moved to it (`step`); `status` is its `$status`.",
      { ...run, role: str, step: hash, status: str, durationMs: int },
      // `usage` is absent in logs of uwf before 0.1; `agent` and `stepNumber` came with the
      // one event stream.
      { ...child, usage, agent: str, stepNumber: int },
    ),
    "step.failed": event(
      "step.failed",
      "The step failed: the head did not move and the thread is suspended with `reason`.",
      { ...run, role: str, reason: str },
      child,
    ),
    "step.retry": event(
      "step.retry",
      "The agent failed transiently (adapter exit 75); the step runs again after `delayMs`.",
      { ...run, role: str, retry: int, maxRetries: int, delayMs: int, reason: str },
      child,
    ),
    "step.aborted": event(
      "step.aborted",
      "The run was interrupted while the step ran (Ctrl-C, `thread stop`); the head did not move.",
      { ...run, role: str },
      child,
    ),
    "step.receipt-failed": event(
      "step.receipt-failed",
      "The step ran in a git working tree but git could not say what it changed (`reason`); the step was stored without its receipt (its trees and diff stat).",
      { ...run, role: str, cwd: str, reason: str },
      child,
    ),

    // ─── where a thread stands ──────────────────────────────────────────────────────────────
    "thread.start": event(
      "thread.start",
      "A thread was made: by `thread start`, or by a fan-out (then `parent` and `index`).",
      { ...run, workflow: str },
      { ...child, index: int, worktree: str, branch: str, title: str },
    ),
    "thread.suspended": event(
      "thread.suspended",
      "The thread waits: for a person, an answer, a budget, a guard, a retry or its fan-out.",
      { ...run, role: str, reason: str, kind: suspendInfoSchema.properties.kind },
      child,
    ),
    "thread.completed": event(
      "thread.completed",
      "The thread reached `$END`; `message` is the rendered prompt of the edge it took.",
      { ...run, message: nullableStr },
      child,
    ),
    "thread.cancel": event(
      "thread.cancel",
      "The thread was cancelled (a fan-out's unfinished child with its parent: `parent`).",
      run,
      child,
    ),
    "thread.stop": event(
      "thread.stop",
      "`thread stop` ended the exec that held the thread (`holder`: its pid).",
      { ...run, holder: int },
    ),
    "thread.takeover": event(
      "thread.takeover",
      "A command took over the thread's lock, which a process that is gone left behind (an exec killed, or ended by a second Ctrl-C): `holder` and `host` name that process, `command` what it ran, `agentStopped` whether an agent it left running was ended.",
      { ...run, holder: int, host: str, command: str, agentStopped: bool },
    ),
    "thread.worktree": event(
      "thread.worktree",
      "A thread's git worktree was removed, or kept (`note` says why).",
      { ...run, ...worktreeRemoval },
    ),
    "thread.import": event(
      "thread.import",
      "`thread import` wrote (or found) a thread of a bundle.",
      { ...run, status: str, head: hash },
      { from: str, dropped: strings },
    ),
    "step.fork": event("step.fork", "`step fork` made a thread whose head is the step `from`.", {
      ...run,
      from: hash,
    }),
    "thread.steered": event(
      "thread.steered",
      "`thread steer` left a guidance note on `thread` for its next step; `pending` notes now wait.",
      { ...run, pending: int },
    ),
    "thread.race.started": event(
      "thread.race.started",
      "`thread race` forked `thread` at step `at` once per agent (race `race`) and runs each fork's next step at once.",
      {
        ...run,
        race: threadId,
        at: hash,
        forks: {
          type: "array",
          items: {
            type: "object",
            required: ["thread", "agent"],
            properties: { thread: threadId, agent: str },
          },
        },
      },
    ),
    "thread.race.finished": event(
      "thread.race.finished",
      "`thread race` ended race `race` of `thread`: `finished` forks stored their step, `failed` did not.",
      { ...run, race: threadId, finished: int, failed: int },
    ),
    "thread.race.promoted": event(
      "thread.race.promoted",
      "`thread race promote` moved `thread` to the head of the fork `fork` that won race `race`.",
      { ...run, race: threadId, fork: threadId, head: hash },
    ),
    "thread.rebased": event(
      "thread.rebased",
      "`thread rebase` made `thread` from the history of `from` under the workflow `workflow`: it reuses `reused` recorded steps and parts at step `firstChange` (null: it parts nowhere).",
      {
        ...run,
        from: threadId,
        workflow: hash,
        reused: int,
        firstChange: { type: ["integer", "null"] },
      },
    ),

    // ─── a fan-out ──────────────────────────────────────────────────────────────────────────
    "fanout.started": event(
      "fanout.started",
      "A route fanned out: `children` child threads run, `concurrency` at a time.",
      { ...run, role: str, children: int, concurrency: int },
      { ...child, failure: { enum: FANOUT_FAILURE_RULES } },
    ),
    "fanout.child": event(
      "fanout.child",
      "One child of a fan-out stopped running in this exec (`thread` is the parent).",
      {
        ...run,
        child: threadId,
        index: int,
        status: { enum: ["completed", "failed", "waiting", "pending"] },
      },
      { ...child, reason: str },
    ),
    "fanout.joined": event(
      "fanout.joined",
      "Every child ended as the failure rule allows: the join step `step` was written.",
      { ...run, role: str, completed: int, failed: int },
      // `step` and `stepNumber` are absent in logs of an earlier uwf.
      { ...child, step: hash, stepNumber: int },
    ),

    // ─── an exec ────────────────────────────────────────────────────────────────────────────
    "exec.wait": event(
      "exec.wait",
      "An exec --wait waits until `retryAfter` to run again a step that failed transiently.",
      { ...run, role: str, retryAfter: str },
      child,
    ),
    "exec.budget": event(
      "exec.budget",
      "The run reached its budget before `role`'s step: the thread is suspended.",
      { ...run, role: str, reason: str },
      child,
    ),
    "exec.guard": event(
      "exec.guard",
      "The run reached a workflow guard before `role`'s step: the thread is suspended.",
      { ...run, role: str, reason: str },
      child,
    ),
    "exec.background": event(
      "exec.background",
      "`thread exec --background` handed the run to a worker process (`worker`: its pid).",
      { ...run, worker: int, count: int },
    ),
    "exec.end": event(
      "exec.end",
      "How a run (exec, resume, poke) ended, with its exit code (a worker's: as in the foreground).",
      {
        ...run,
        status: str,
        stoppedBecause: { enum: STOPPED_BECAUSE },
        steps: int,
        message: str,
        exitCode: int,
      },
    ),
    "exec.claim": event(
      "exec.claim",
      "A fleet worker (`thread exec --next`) claimed the thread, the oldest runnable one nobody held.",
      { ...run, workflow: str },
    ),
    "exec.idle": event(
      "exec.idle",
      "A fleet worker (`thread exec --next --wait`) found no runnable thread and waits for one, looking again at most every `pollMs`; said once per wait.",
      { workflow: nullableStr, pollMs: int },
    ),
    "exec.error": event(
      "exec.error",
      "A background worker's run ended with an error, as the CLI would have printed it.",
      {
        ...run,
        code: str,
        message: str,
        hint: nullableStr,
        exitCode: int,
      },
    ),

    // ─── an adapter (written by the adapter's own process) ──────────────────────────────────
    "agent.step.stored": event(
      "agent.step.stored",
      "The adapter stored its step (`agent`: the adapter's name); uwf checks it next.",
      {
        ...run,
        role: str,
        agent: str,
        step: hash,
        status: str,
        attempts: int,
      },
    ),
    "agent.output.invalid": event(
      "agent.output.invalid",
      "The agent's output stayed invalid after every attempt; `detail` keeps each raw output.",
      {
        ...run,
        role: str,
        agent: str,
        attempts: int,
        errors: strings,
        detail: hash,
      },
    ),
    "agent.guidance.delivered": event(
      "agent.guidance.delivered",
      "A `thread steer` note (`rev`: the revision its steer wrote) reached the running agent of `role` at once; the step records it, and the next step does not take it again.",
      {
        ...run,
        role: str,
        agent: str,
        rev: int,
      },
    ),

    // ─── commands ───────────────────────────────────────────────────────────────────────────
    "workflow.add": event(
      "workflow.add",
      "`workflow add` stored a workflow (`changed`: its name now points at a new hash).",
      { workflow: str, hash, changed: bool },
    ),
    "workflow.rollback": event(
      "workflow.rollback",
      "`workflow rollback` pointed the name back at an earlier hash.",
      { workflow: str, hash },
    ),
    "workflow.rm": event(
      "workflow.rm",
      "`workflow rm` removed the name from the registry (the nodes stay in the CAS).",
      { workflow: str },
    ),
    "config.set": event(
      "config.set",
      "`config set` changed a key of config.yaml (never its value: it may be a secret).",
      { key: str },
    ),
    "config.unset": event("config.unset", "`config unset` removed a key of config.yaml.", {
      key: str,
    }),
    "setup.saved": event(
      "setup.saved",
      "`uwf setup` saved config.yaml with this provider, model and agent.",
      {
        provider: nullableStr,
        model: nullableStr,
        agent: nullableStr,
      },
    ),
    "store.migrate": event(
      "store.migrate",
      "`store migrate` copied `nodes` nodes and every thread from one store to another.",
      { from: str, to: str, nodes: int },
    ),
    "dashboard.start": event(
      "dashboard.start",
      "`uwf dashboard` began serving on `host` (127.0.0.1 unless `--host` said otherwise) at `port`.",
      { host: str, port: int },
    ),
    "webhook.delivery": event(
      "webhook.delivery",
      "`uwf dashboard` took a signed GitHub delivery (`githubEvent`, e.g. `issues.opened`): the threads it `started` and `found` (started before), the workflows that `refused` it, and `durationMs` from its arrival to its answer.",
      {
        githubEvent: str,
        delivery: nullableStr,
        started: strings,
        found: strings,
        refused: strings,
        durationMs: int,
      },
    ),
    "notify.failed": event(
      "notify.failed",
      "A `notify:` entry of config.yaml could not deliver its notification (`on`: the moment, `notifier`: the command, or the webhook's origin); the run went on.",
      { ...run, on: str, notifier: str, reason: str },
    ),
    "trace.failed": event(
      "trace.failed",
      "A live OpenTelemetry export (`OTEL_EXPORTER_OTLP_ENDPOINT` set) could not send the spans of the steps a command ran to `endpoint`; the run went on. `uwf thread trace --otlp` sends them again.",
      { endpoint: str, threads: strings, spans: int, reason: str },
    ),
    "command.interrupted": event(
      "command.interrupted",
      "An interruptible command was interrupted (`by`: the signal, or the closed output).",
      { by: str },
    ),
    "command.crashed": event(
      "command.crashed",
      "uwf failed in a way it did not expect; `stack` is for the bug report.",
      { command: str, message: str },
      { stack: str },
    ),
  } as const;
  return schemas;
}

type EventSchemaSet = ReturnType<typeof build>;
export type EventName = keyof EventSchemaSet;

/** The event named `N`, e.g. `EventOf<"step.done">`. */
export type EventOf<N extends EventName> = FromSchema<EventSchemaSet[N]>;
/** Every event uwf emits. */
export type UwfEvent = { [N in EventName]: EventOf<N> }[EventName];
/** What an emitter gives for event `N`: everything but its name and time. */
export type EventFields<N extends EventName> = Omit<EventOf<N>, "event" | "ts">;
/** The events of a thread's run: those that name a thread. */
export type ThreadEvent = Extract<UwfEvent, { thread: string }>;

let built: EventSchemaSet | undefined;

/**
 * The JSON Schema of each event, keyed by its name; built on first use (every uwf process loads
 * protocol, and only readers check events).
 */
export function eventSchemas(): EventSchemaSet {
  built ??= build();
  return built;
}

/** How loud each event is in the process log (`uwf log show --level`). */
export const EVENT_LEVELS: Readonly<Record<EventName, "info" | "warn" | "error">> = {
  "step.start": "info",
  "adapter.output": "info",
  "step.done": "info",
  "step.failed": "error",
  "step.retry": "warn",
  "step.aborted": "warn",
  "step.receipt-failed": "warn",
  "thread.start": "info",
  "thread.suspended": "info",
  "thread.completed": "info",
  "thread.cancel": "info",
  "thread.stop": "info",
  "thread.takeover": "warn",
  "thread.worktree": "info",
  "thread.import": "info",
  "step.fork": "info",
  "thread.rebased": "info",
  "thread.race.started": "info",
  "thread.race.finished": "info",
  "thread.race.promoted": "info",
  "thread.steered": "info",
  "fanout.started": "info",
  "fanout.child": "info",
  "fanout.joined": "info",
  "exec.wait": "info",
  "exec.budget": "warn",
  "exec.guard": "warn",
  "exec.background": "info",
  "exec.end": "info",
  "exec.claim": "info",
  "exec.idle": "info",
  "exec.error": "error",
  "workflow.add": "info",
  "workflow.rollback": "info",
  "workflow.rm": "info",
  "config.set": "info",
  "config.unset": "info",
  "setup.saved": "info",
  "store.migrate": "info",
  "dashboard.start": "info",
  "agent.step.stored": "info",
  "agent.output.invalid": "error",
  "agent.guidance.delivered": "info",
  "webhook.delivery": "info",
  "notify.failed": "warn",
  "trace.failed": "warn",
  "command.interrupted": "warn",
  "command.crashed": "error",
};

/**
 * `value` as an event, when it is one uwf emits and fits that event's schema; null otherwise (a
 * newer uwf's event, a hand-edited or torn one). Every reader of events from outside the
 * process (the log, the web view's feed) takes them through this. Extra keys stay on it.
 */
export function eventFrom(value: unknown): UwfEvent | null {
  if (!isPlainObject(value) || !isEventName(value.event)) return null;
  return matchesSchema(eventSchemas()[value.event], value) ? (value as UwfEvent) : null;
}

/** Whether `name` is an event uwf emits. */
export function isEventName(name: unknown): name is EventName {
  return typeof name === "string" && Object.hasOwn(EVENT_LEVELS, name);
}
