import {
  hiddenCharacterProblem,
  isPlainObject,
  STATUS_FIELD,
  type SuspendInfo,
  type ThreadPointer,
} from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { parse as parseYaml } from "yaml";
import { type ExitOutput, type RoleExits, requireRoleExits } from "../workflow/role-exits.js";
import type { SchemaMap } from "../workflow/schema-shape.js";
import { HUMAN_AGENT } from "../workflow/step-roles.js";
import type { RunContext } from "./context.js";
import { parseResult } from "./script-step.js";

/** A human's answer to a role with `agent: human`, as `uwf thread answer` (or a form) gives it. */
export interface HumanAnswer {
  /** `--status`; may be left out when `values` carries `$status`. */
  status?: string | undefined;
  /** Fields as typed on a command line (`--set key=value`): typed by the role's schema. */
  sets?: ReadonlyArray<readonly [string, string]>;
  /** Fields already typed (an answer file); `sets` win over them. */
  values?: Record<string, unknown>;
  /** Markdown body of the step (optional). */
  body?: string;
  /** Who answered, recorded in the step's detail. */
  by: string;
}

/** What a human role asks: its statuses and, per status, the fields an answer carries. */
export interface HumanQuestion {
  role: string;
  prompt: string;
  statuses: { status: string; fields: { name: string; required: boolean; type: string }[] }[];
}

/** True when a role is answered by a human instead of an agent. */
export function isHumanRole(role: { agent?: string | undefined } | undefined): boolean {
  return role?.agent === HUMAN_AGENT;
}

/** The role's statuses and their fields, from its frontmatter schema. */
export async function humanQuestion(
  run: Pick<RunContext, "store" | "router">,
  pointer: ThreadPointer,
  role: string,
  prompt: string,
): Promise<HumanQuestion> {
  const exits = await roleExits(run, pointer, role);
  return {
    role,
    prompt,
    statuses: exits.statuses.map((status) => {
      const exit = exits.outputs.get(status)!;
      return {
        status,
        fields: Object.entries(exit.properties)
          .filter(([name]) => name !== STATUS_FIELD)
          .map(([name, schema]) => ({
            name,
            required: exit.required.includes(name),
            type: typeName(schema),
          })),
      };
    }),
  };
}

/**
 * The suspend reason of a thread waiting for a human: the rendered edge prompt, then every
 * answer the role's schema allows as an `uwf thread answer` line.
 */
export function humanQuestionText(thread: string, question: HumanQuestion): string {
  const lines = [
    question.prompt.trimEnd(),
    "",
    `Role "${question.role}" is answered by a human. Answer with one of:`,
  ];
  for (const { status, fields } of question.statuses) {
    const sets = fields.map((f) =>
      f.required ? `--set ${f.name}=<${f.type}>` : `[--set ${f.name}=<${f.type}>]`,
    );
    lines.push(`  uwf thread answer ${thread} --status ${[status, ...sets].join(" ")}`);
  }
  return lines.join("\n");
}

/** The suspend info of a thread that reached a human role by this edge. */
export async function humanSuspension(
  run: Pick<RunContext, "store" | "router">,
  pointer: ThreadPointer,
  role: string,
  prompt: string,
  location: string | null,
): Promise<SuspendInfo> {
  const question = await humanQuestion(run, pointer, role, prompt);
  return {
    role,
    reason: humanQuestionText(pointer.thread, question),
    kind: "human",
    prompt,
    location,
  };
}

/**
 * An answer file: markdown with YAML frontmatter (the text after it is the body), or a YAML or
 * JSON mapping of fields.
 */
export function parseAnswerFile(
  text: string,
  name: string,
): { values: Record<string, unknown>; body: string | null } {
  const hint = "Write the answer as a mapping, e.g. `$status: approved` and one line per field.";
  if (text.trimStart().startsWith("---")) {
    const parsed = parseResult(text);
    if (parsed) return { values: parsed.output, body: parsed.body };
    throw new UwfError("USAGE", `the frontmatter of the answer file "${name}" is not a mapping`, {
      hint,
    });
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new UwfError("USAGE", `the answer file "${name}" is not valid YAML or JSON`, {
      hint,
      cause: error,
    });
  }
  if (!isPlainObject(value)) {
    throw new UwfError("USAGE", `the answer file "${name}" must hold a mapping of fields`, {
      hint,
    });
  }
  return { values: value as Record<string, unknown>, body: null };
}

/** The output an answer makes: `$status` first, each `--set` typed by the status's schema. */
export function answerOutput(
  role: string,
  exits: RoleExits,
  answer: HumanAnswer,
): Record<string, unknown> {
  const values = answer.values ?? {};
  const given = values[STATUS_FIELD];
  const status = answer.status ?? (typeof given === "string" ? given : undefined);
  const allowed = exits.statuses.join(", ");
  if (status === undefined) {
    throw invalidAnswer(role, [`the answer has no "$status": pass --status (one of: ${allowed})`]);
  }
  const hidden = hiddenCharacterProblem("status", status);
  if (hidden) throw invalidAnswer(role, [`${hidden}; type one of: ${allowed}`]);
  const exit = exits.outputs.get(status);
  if (exit === undefined) {
    throw invalidAnswer(role, [`status "${status}" is not one of role "${role}"'s: ${allowed}`]);
  }
  const output: Record<string, unknown> = { ...values, [STATUS_FIELD]: status };
  const problems: string[] = [];
  for (const [key, raw] of answer.sets ?? []) {
    const schema = exit.properties[key];
    if (key === STATUS_FIELD) {
      problems.push('set "$status" with --status, not --set');
    } else if (!isPlainObject(schema)) {
      problems.push(`field "${key}" is not part of status "${status}" (${fieldList(exit)})`);
    } else {
      output[key] = typedValue(schema, raw);
    }
  }
  for (const key of Object.keys(output)) {
    if (!(key in exit.properties)) {
      problems.push(`field "${key}" is not part of status "${status}" (${fieldList(exit)})`);
    }
  }
  for (const name of exit.required) {
    if (output[name] === undefined) {
      problems.push(`status "${status}" needs field "${name}": add --set ${name}=…`);
    }
  }
  if (problems.length > 0) throw invalidAnswer(role, [...new Set(problems)]);
  return output;
}

/**
 * A command-line value typed like the field: text for a string field, else read as YAML
 * (`3`, `true`, `[a, b]`, `{k: v}`), so `--set score=3` gives a number where one is declared.
 */
function typedValue(schema: SchemaMap, raw: string): unknown {
  const types = typesOf(schema);
  if (types.length === 0 || types.includes("string")) {
    if (types.length === 0 && !isTextOnly(schema)) return parseLoosely(raw);
    return raw;
  }
  return parseLoosely(raw);
}

function parseLoosely(raw: string): unknown {
  try {
    return parseYaml(raw) ?? null;
  } catch {
    return raw;
  }
}

/** A field without `type` whose `enum`/`const` values are all strings takes text as is. */
function isTextOnly(schema: SchemaMap): boolean {
  const values = Array.isArray(schema.enum)
    ? schema.enum
    : schema.const !== undefined
      ? [schema.const]
      : null;
  return values === null || values.every((v) => typeof v === "string");
}

function typesOf(schema: SchemaMap): string[] {
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

function typeName(schema: unknown): string {
  if (!isPlainObject(schema)) return "value";
  if (Array.isArray(schema.enum)) return schema.enum.map(String).join("|");
  const types = typesOf(schema).filter((t) => t !== "null");
  return types.length > 0 ? types.join("|") : "value";
}

function fieldList(exit: ExitOutput): string {
  const fields = Object.keys(exit.properties).filter((k) => k !== STATUS_FIELD);
  return fields.length > 0 ? `its fields: ${fields.join(", ")}` : "it has no fields";
}

export async function roleExits(
  run: Pick<RunContext, "store" | "router">,
  pointer: ThreadPointer,
  role: string,
): Promise<RoleExits> {
  const workflow = await run.router.workflow(pointer.workflowHash);
  const definition = workflow.roles[role];
  if (!definition) {
    throw new UwfError("WORKFLOW_INVALID", `workflow "${workflow.name}" has no role "${role}"`);
  }
  const schema = (await run.store.cas.get(definition.frontmatter)).payload;
  return requireRoleExits(workflow.name, role, (isPlainObject(schema) ? schema : {}) as SchemaMap);
}

export function invalidAnswer(role: string, problems: string[]): UwfError {
  return new UwfError(
    "OUTPUT_INVALID",
    `the answer does not fit role "${role}"'s schema:\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    {
      hint: "Nothing was written. Fix the answer and run `uwf thread answer` again; `uwf thread show` lists what the role accepts.",
      details: { errors: problems },
    },
  );
}

export function describeState(pointer: ThreadPointer): string {
  const info = pointer.suspended;
  if (pointer.status !== "suspended" || info === null) return pointer.status;
  const role = `role "${info.role}"`;
  switch (info.kind) {
    case "failure":
      return `suspended by a failure of ${role}`;
    case "question":
      return `suspended with a question from ${role}`;
    case "budget":
      return `suspended by its run's budget before ${role}: ${info.reason}`;
    case "guard":
      return `suspended by a workflow guard before ${role}: ${info.reason}`;
    case "retry":
      return `suspended after transient failures of ${role}`;
    case "fanout":
      return `waiting for its fan-out into ${role}`;
    default:
      return `suspended (${info.kind})`;
  }
}

export function stateHint(pointer: ThreadPointer): string {
  const id = pointer.thread;
  if (pointer.status === "idle") return `Run its next step with: uwf thread exec ${id}`;
  if (pointer.status === "suspended") {
    switch (pointer.suspended?.kind) {
      case "question":
        return `Answer its question with: uwf thread resume ${id} -p "<your answer>"`;
      case "failure":
      case "retry":
        return `Retry the failed step with: uwf thread resume ${id}`;
      case "fanout":
        return `See its children with: uwf thread tree ${id}; uwf thread resume ${id} re-runs the failed ones`;
      default:
        // Budget and guard: resume runs the step it stopped before; a human role then waits.
        return `Run the step it stopped before with: uwf thread resume ${id}; a human role then waits for uwf thread answer`;
    }
  }
  return `See where it stands with: uwf thread show ${id}`;
}
