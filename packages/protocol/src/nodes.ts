/**
 * Stored node shapes (DESIGN §4). Every node is `{ type, payload }`; `type` is the hash of the
 * node's schema node, and schema nodes have `type: "schema"`. Payload fields whose schema says
 * `"format": "cas-ref"` hold hashes that `refs`, `walk` and `gc` follow.
 *
 * Each payload is written once, as its JSON Schema; its type is derived with `FromSchema`.
 * The built-in schemas' exact content is their hash, and every node's `type` is such a hash:
 * never edit them (a test pins them); a new shape needs a new schema.
 */
import type { FromSchema } from "./from-schema.js";

export type Hash = string;
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };
export type JsonSchema = { [key: string]: JsonValue };

export const SCHEMA_TYPE = "schema";
export const CAS_REF_FORMAT = "cas-ref";

export interface CasNode<P = JsonValue> {
  type: Hash | typeof SCHEMA_TYPE;
  payload: P;
}

const casRef = { type: "string", format: CAS_REF_FORMAT } as const;
const nullableCasRef = { type: ["string", "null"], format: CAS_REF_FORMAT } as const;
const nullableNumber = { type: ["number", "null"] } as const;

const roleSchema = {
  type: "object",
  required: ["frontmatter"],
  additionalProperties: false,
  properties: {
    description: { type: "string" },
    goal: { type: "string" },
    capabilities: { type: "array", items: { type: "string" } },
    procedure: { type: "string" },
    output: { type: "string" },
    // The hash of the schema node of this role's frontmatter output.
    frontmatter: casRef,
  },
} as const;

const edgeSchema = {
  type: "object",
  required: ["role", "prompt"],
  additionalProperties: false,
  properties: {
    role: { type: "string" },
    prompt: { type: "string" },
    location: { type: "string" },
  },
} as const;

export const workflowSchema = {
  $id: "uwf:workflow",
  type: "object",
  required: ["name", "roles", "graph"],
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    roles: { type: "object", additionalProperties: roleSchema },
    graph: {
      type: "object",
      additionalProperties: { type: "object", additionalProperties: edgeSchema },
    },
  },
} as const;

/**
 * A role that runs no agent (issue 9): `agent: human` waits for `uwf thread answer`; `run`
 * executes a command and makes its result the output. Only second-edition workflow nodes may
 * hold such roles, so every workflow stored before keeps its hash and its schema.
 */
const stepRoleSchema = {
  type: "object",
  required: ["frontmatter"],
  additionalProperties: false,
  properties: {
    ...roleSchema.properties,
    agent: { const: "human" },
    // An argv (no shell), or one string run with `/bin/sh -c` when `shell` is true.
    run: { type: ["array", "string"], items: { type: "string" } },
    shell: { type: "boolean" },
    // Exit code ("0".."255" or "default") → `$status`, for a command that prints no output.
    exitStatus: { type: "object", additionalProperties: { type: "string" } },
    timeoutSeconds: { type: "integer", minimum: 1 },
    // Guard: the thread suspends before this role's step once the chain holds this many of it.
    maxVisits: { type: "integer", minimum: 1 },
  },
} as const;

/**
 * The second edition of the workflow node: the first one plus `inputs` (the hash of the schema
 * node of the thread inputs the workflow declares) and roles that run no agent. A workflow
 * with neither is still written as the first edition, so its hash is the one it always had
 * (see `workflowNodeKind`).
 */
export const workflow2Schema = {
  $id: "uwf:workflow/2",
  type: "object",
  required: ["name", "roles", "graph"],
  additionalProperties: false,
  properties: {
    ...workflowSchema.properties,
    roles: { type: "object", additionalProperties: stepRoleSchema },
    inputs: casRef,
    // Guard: the thread suspends before a step once its chain holds this many steps.
    maxSteps: { type: "integer", minimum: 1 },
    // Every thread runs in its own git worktree on its own branch (`thread start --worktree`).
    worktree: { type: "boolean" },
  },
} as const;

/** How a fan-out treats a child that failed (see `fanoutSchema`). */
export const FANOUT_FAILURE_RULES = ["all", "any", "continue"] as const;

/**
 * A fan-out (issue 9): the edge's target role is the join, written by the engine once the
 * children have ended. `workflow` pins the child workflow by hash (a `role:` fan-out is stored
 * as a one-role workflow made when the parent is stored). `over` names a list in the output
 * (`{{{items}}}`, `{{{plan.files}}}`); each item becomes a child thread whose task is the edge
 * prompt rendered with `item` and `index`. Without `over` there is one child (a sub-workflow).
 * `failure`: `all` (every child must complete), `any` (at least one), `continue` (none).
 */
const fanoutSchema = {
  type: "object",
  required: ["workflow"],
  additionalProperties: false,
  properties: {
    workflow: casRef,
    over: { type: "string" },
    concurrency: { type: "integer", minimum: 1 },
    failure: { enum: FANOUT_FAILURE_RULES },
  },
} as const;

const edge3Schema = {
  ...edgeSchema,
  properties: { ...edgeSchema.properties, fanout: fanoutSchema },
} as const;

const role3Schema = {
  ...stepRoleSchema,
  properties: {
    ...stepRoleSchema.properties,
    // The join of a fan-out: its step is written by the engine from the children's results.
    join: { const: true },
  },
} as const;

/**
 * The third edition of the workflow node: the second plus fan-out edges and join roles. Written
 * only for a workflow that fans out, so every other workflow keeps its hash.
 */
export const workflow3Schema = {
  $id: "uwf:workflow/3",
  type: "object",
  required: ["name", "roles", "graph"],
  additionalProperties: false,
  properties: {
    ...workflow2Schema.properties,
    roles: { type: "object", additionalProperties: role3Schema },
    graph: {
      type: "object",
      additionalProperties: { type: "object", additionalProperties: edge3Schema },
    },
  },
} as const;

/**
 * What starts a workflow by itself (issue 28): `github` maps a GitHub event to the thread's
 * inputs. `events` lists `<event>` or `<event>.<action>` names; `inputs` and `key` are mustache
 * templates read with `{ event, event_name, delivery }`; `key` names an event's identity (by
 * default the delivery id, else the payload's hash), from which the thread id is derived.
 */
const triggersSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    github: {
      type: "object",
      required: ["events"],
      additionalProperties: false,
      properties: {
        events: { type: "array", minItems: 1, items: { type: "string" } },
        inputs: { type: "object", additionalProperties: { type: "string" } },
        key: { type: "string" },
      },
    },
  },
} as const;

/**
 * The fourth edition of the workflow node: the third plus `on`, the workflow's triggers. They
 * travel with the hash, so a webhook finds them from a registered workflow. Written only for a
 * workflow that declares triggers, so every other workflow keeps its hash.
 */
export const workflow4Schema = {
  $id: "uwf:workflow/4",
  type: "object",
  required: ["name", "roles", "graph"],
  additionalProperties: false,
  properties: {
    ...workflow3Schema.properties,
    on: triggersSchema,
  },
} as const;

export type WorkflowTriggers = FromSchema<typeof triggersSchema>;
export type GithubTrigger = NonNullable<WorkflowTriggers["github"]>;

export type RolePayload = FromSchema<typeof roleSchema> &
  Partial<Omit<FromSchema<typeof role3Schema>, "frontmatter">>;
export type FanoutFailureRule = (typeof FANOUT_FAILURE_RULES)[number];
export type Fanout = FromSchema<typeof fanoutSchema>;
export type EdgeTarget = FromSchema<typeof edgeSchema> & { fanout?: Fanout };
/** Any edition of a workflow node: later editions only add optional fields. */
export type WorkflowPayload = Omit<FromSchema<typeof workflow2Schema>, "roles" | "graph"> & {
  roles: Record<string, RolePayload>;
  graph: Record<string, Record<string, EdgeTarget>>;
  on?: WorkflowTriggers;
};
/** `graph[role][$status]` → the edge taken. */
export type Graph = WorkflowPayload["graph"];

export const startSchema = {
  $id: "uwf:start",
  type: "object",
  required: ["workflow", "prompt", "cwd", "createdAtMs"],
  additionalProperties: false,
  properties: {
    workflow: casRef,
    prompt: { type: "string" },
    cwd: { type: "string" },
    createdAtMs: { type: "integer" },
  },
} as const;

/**
 * The second edition of the StartNode: the first one plus `inputs`, the thread's typed inputs
 * as validated against the workflow's `inputs` schema. A thread without inputs is still
 * started with the first edition.
 */
export const start2Schema = {
  $id: "uwf:start/2",
  type: "object",
  required: ["workflow", "prompt", "cwd", "createdAtMs", "inputs"],
  additionalProperties: false,
  properties: {
    ...startSchema.properties,
    inputs: { type: "object" },
  },
} as const;

/**
 * The third edition of the StartNode: a rebased thread's second start (`uwf thread rebase`).
 * It pins the edited workflow and names what it continues: `rebase.at`, the last recorded step
 * the rebased thread shares as it is, and `rebase.start`, that step's StartNode. Steps up to
 * `rebase.at` keep their start; the steps after it take this one. `inputs` as in the second.
 */
export const start3Schema = {
  $id: "uwf:start/3",
  type: "object",
  required: ["workflow", "prompt", "cwd", "createdAtMs", "rebase"],
  additionalProperties: false,
  properties: {
    ...start2Schema.properties,
    rebase: {
      type: "object",
      required: ["start", "at"],
      additionalProperties: false,
      properties: { start: casRef, at: casRef },
    },
  },
} as const;

/** What a rebased thread's StartNode continues: a recorded step and its StartNode. */
export type StartRebase = { start: string; at: string };

/**
 * Any edition of a StartNode: `inputs` is there only when the workflow declares inputs,
 * `rebase` only on a rebased thread's second start.
 */
export type StartPayload = FromSchema<typeof startSchema> & {
  inputs?: Record<string, JsonValue>;
  rebase?: StartRebase;
};

const usageProperties = {
  inputTokens: nullableNumber,
  outputTokens: nullableNumber,
  cacheReadTokens: nullableNumber,
  cacheWriteTokens: nullableNumber,
  costUsd: nullableNumber,
  turns: nullableNumber,
  durationMs: nullableNumber,
} as const;

/** Every usage figure; each is a number or null (not reported: unknown is not zero). */
export const USAGE_FIELDS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "costUsd",
  "turns",
  "durationMs",
] as const satisfies readonly (keyof typeof usageProperties)[];

export const usageSchema = {
  type: "object",
  required: USAGE_FIELDS,
  additionalProperties: false,
  properties: usageProperties,
} as const;

export type Usage = FromSchema<typeof usageSchema>;

export const stepSchema = {
  $id: "uwf:step",
  type: "object",
  required: [
    "start",
    "prev",
    "role",
    "output",
    "body",
    "detail",
    "agent",
    "edgePrompt",
    "assembledPrompt",
    "cwd",
    "startedAtMs",
    "completedAtMs",
    "usage",
    "attempts",
  ],
  additionalProperties: false,
  properties: {
    start: casRef,
    prev: nullableCasRef,
    role: { type: "string" },
    output: casRef,
    body: casRef,
    detail: casRef,
    agent: { type: "string" },
    edgePrompt: { type: "string" },
    assembledPrompt: casRef,
    cwd: { type: "string" },
    startedAtMs: { type: "integer" },
    completedAtMs: { type: "integer" },
    usage: usageSchema,
    attempts: { type: "integer", minimum: 0 },
  },
} as const;

export type StepPayload = FromSchema<typeof stepSchema>;

export const textSchema = { $id: "uwf:text", type: "string" } as const;

export type TextPayload = FromSchema<typeof textSchema>;

/** The schema of adapter session records when an adapter has nothing richer to say. */
export const detailSchema = {
  $id: "uwf:detail",
  type: "object",
  properties: {
    adapter: { type: "string" },
    model: { type: ["string", "null"] },
    sessionId: { type: ["string", "null"] },
    turns: { type: "array" },
    rawOutput: { type: "string" },
    attempts: { type: "array" },
  },
} as const;

export type DetailPayload = FromSchema<typeof detailSchema>;

/** One model turn of an agent: what it said and the tools it called, with their results. */
export const turnSchema = {
  $id: "uwf:turn",
  type: "object",
  required: ["text", "toolCalls", "usage"],
  additionalProperties: false,
  properties: {
    text: { type: "string" },
    toolCalls: {
      type: "array",
      items: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string" },
          input: {},
          output: { type: "string" },
          isError: { type: "boolean" },
        },
      },
    },
    usage: { type: ["object", "null"] },
  },
} as const;

export type TurnPayload = FromSchema<typeof turnSchema>;

const sessionRecordSchema = {
  type: "object",
  required: ["adapter", "sessionId", "cwd"],
  properties: {
    adapter: { type: "string" },
    sessionId: { type: "string" },
    cwd: { type: "string" },
    model: { type: ["string", "null"] },
  },
} as const;

/**
 * What agent-kit records about a step's run: each model turn as a `turn` node (followed by
 * gc and walk), every attempt's raw output, and the thread's agent sessions by role, copied
 * forward from the step before so a role's next visit finds its session in the head's detail.
 */
export const stepDetailSchema = {
  $id: "uwf:step-detail",
  type: "object",
  required: ["adapter", "model", "sessionId", "turns", "sessions", "rawOutput", "attempts"],
  properties: {
    adapter: { type: "string" },
    model: { type: ["string", "null"] },
    sessionId: { type: ["string", "null"] },
    turns: { type: "array", items: casRef },
    sessions: { type: "object", additionalProperties: sessionRecordSchema },
    rawOutput: { type: "string" },
    attempts: { type: "array" },
    failure: { type: "array", items: { type: "string" } },
  },
} as const;

export type StepDetailPayload = FromSchema<typeof stepDetailSchema>;

/** Built-in node schemas, registered in every store. Their hashes are stable. */
export const BUILTIN_SCHEMAS = {
  workflow: workflowSchema,
  start: startSchema,
  step: stepSchema,
  text: textSchema,
  detail: detailSchema,
  turn: turnSchema,
  stepDetail: stepDetailSchema,
  workflow2: workflow2Schema,
  start2: start2Schema,
  workflow3: workflow3Schema,
  workflow4: workflow4Schema,
  start3: start3Schema,
} as const;

export type BuiltinNodeKind = keyof typeof BUILTIN_SCHEMAS;

/**
 * Kinds with more than one edition, oldest first. A reader asking for a kind accepts every
 * edition of it; a writer uses the oldest edition that can hold the payload, so adding an
 * edition never changes the hash of a node that could be written before.
 */
export const BUILTIN_EDITIONS: Readonly<Partial<Record<BuiltinNodeKind, BuiltinNodeKind[]>>> = {
  workflow: ["workflow", "workflow2", "workflow3", "workflow4"],
  start: ["start", "start2", "start3"],
};

/** The kinds a node read as `kind` may have: its editions, or just itself. */
export function editionsOf(kind: BuiltinNodeKind): readonly BuiltinNodeKind[] {
  return BUILTIN_EDITIONS[kind] ?? [kind];
}

/** Whether every (defined) key of `value` is one `schema` declares. */
function onlyKeysOf(value: object, schema: { properties: object }): boolean {
  return Object.entries(value).every(
    ([key, field]) => field === undefined || Object.hasOwn(schema.properties, key),
  );
}

/**
 * The edition a workflow node is written with: the first whenever the first can hold it, so a
 * workflow that uses nothing a later edition added (inputs, guards, worktrees, roles that run
 * no agent) keeps the hash it always had; only fan-out edges and join roles need the third,
 * only triggers (`on`) the fourth. A
 * top-level or role field added to `workflow2Schema` needs nothing here.
 */
export function workflowNodeKind(
  payload: WorkflowPayload,
): "workflow" | "workflow2" | "workflow3" | "workflow4" {
  if (payload.on !== undefined) return "workflow4";
  const third =
    Object.values(payload.roles).some((role) => role.join !== undefined) ||
    Object.values(payload.graph).some((edges) =>
      Object.values(edges).some((edge) => edge.fanout !== undefined),
    );
  if (third) return "workflow3";
  const first =
    onlyKeysOf(payload, workflowSchema) &&
    Object.values(payload.roles).every((role) => onlyKeysOf(role, roleSchema));
  return first ? "workflow" : "workflow2";
}

/**
 * The edition a StartNode is written with: the first whenever it can hold it (no inputs), the
 * third only for a rebase.
 */
export function startNodeKind(payload: StartPayload): "start" | "start2" | "start3" {
  if (payload.rebase !== undefined) return "start3";
  return onlyKeysOf(payload, startSchema) ? "start" : "start2";
}

/**
 * The hash of each built-in schema node, written down because they are constants: hashing all
 * of them costs a process ≈ 10 ms. The store's builtins.test.ts re-hashes the schemas and fails
 * if one changes without this table.
 */
export const BUILTIN_SCHEMA_HASHES: Readonly<Record<BuiltinNodeKind, string>> = {
  workflow: "8SM77TVK10MYA",
  start: "EKFG3MT1M619Z",
  step: "41E4XG2G3XYG0",
  text: "BFPCY5DWEPBVJ",
  detail: "23FDW4NCA3EDH",
  turn: "33TJH7P6GD0EM",
  stepDetail: "2DGJV5H68DM30",
  workflow2: "1EKRTKKY5KXSV",
  start2: "7B290PMF22E5K",
  workflow3: "6327N5FNC2J85",
  workflow4: "ATCZPHRT5GXR3",
  start3: "7Y8T34ZWDFQX4",
};

/** Add usage figures; unknown stays unknown only while every side is unknown. */
export function addUsage(a: Usage, b: Partial<Usage>): Usage {
  const total = { ...a };
  for (const field of USAGE_FIELDS) {
    const value = b[field];
    if (typeof value === "number" && Number.isFinite(value))
      total[field] = (total[field] ?? 0) + value;
  }
  return total;
}

export function emptyUsage(): Usage {
  return {
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    costUsd: null,
    turns: null,
    durationMs: null,
  };
}

/**
 * The output of any role that answers `$status: $SUSPEND` (DESIGN §9): valid for every role,
 * so it has its own schema instead of the role's.
 */
export const suspendOutputSchema = {
  title: "uwf $SUSPEND output",
  description: "An agent asks a human: the thread waits for an answer.",
  type: "object",
  required: ["$status", "reason"],
  additionalProperties: false,
  properties: {
    $status: { const: "$SUSPEND" },
    reason: { type: "string", minLength: 1 },
  },
} as const;

export type SuspendOutput = FromSchema<typeof suspendOutputSchema>;
