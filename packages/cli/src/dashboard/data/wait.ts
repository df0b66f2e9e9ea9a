import type { Runner } from "@united-workforce/engine";
import {
  isPlainObject,
  STATUS_FIELD,
  type SuspendInfo,
  type SuspendKind,
  type ThreadPointer,
} from "@united-workforce/protocol";

// What a suspended thread waits for, as its page shows it: the kind, and for a human role the
// form its schema makes.

/** One field of a human role's answer, as a form control shows it. */
export interface FormField {
  name: string;
  required: boolean;
  /** The JSON Schema types the field declares (empty: any). */
  types: string[];
  /** The values it may take, when the schema lists them. */
  choices: string[] | null;
  description: string | null;
}

/** A human role's answer form: its statuses, each with the fields an answer by it carries. */
export interface HumanForm {
  statuses: { status: string; fields: FormField[] }[];
}

export interface WaitView {
  kind: SuspendKind;
  role: string;
  reason: string;
  /** The instruction the role was (or would have been) given: a human role's question. */
  prompt: string | null;
  /** `retry`: when the step may run again. */
  retryAfter: string | null;
  /** `guard`: which guard stopped it. */
  guard: string | null;
  /** `human`: the form; null for every other kind. */
  form: HumanForm | null;
}

/** Kinds only a person moves on: the thread list shows them first. */
export const NEEDS_A_PERSON: ReadonlySet<SuspendKind> = new Set([
  "question",
  "human",
  "failure",
  "budget",
  "guard",
]);

export async function waitView(runner: Runner, pointer: ThreadPointer): Promise<WaitView | null> {
  const info = pointer.suspended;
  if (pointer.status !== "suspended" || info === null) return null;
  return {
    kind: info.kind,
    role: info.role,
    reason: info.reason,
    prompt: info.prompt ?? null,
    retryAfter: info.retryAfter ?? null,
    guard: info.guard ?? null,
    form: info.kind === "human" ? await humanForm(runner, pointer, info) : null,
  };
}

/**
 * The statuses and fields of the role a human answers, read by the engine's one reader of
 * `$status` (`requireRoleExits`), so the form offers what `uwf thread answer` accepts.
 */
async function humanForm(
  runner: Runner,
  pointer: ThreadPointer,
  info: SuspendInfo,
): Promise<HumanForm | null> {
  const { requireRoleExits } = await import("@united-workforce/engine");
  const workflow = await runner.workflow(pointer.workflowHash);
  const role = workflow.roles[info.role];
  if (role === undefined) return null;
  const schema = await runner.store.cas.getPayload(role.frontmatter);
  const exits = requireRoleExits(
    workflow.name,
    info.role,
    (isPlainObject(schema) ? schema : {}) as Record<string, unknown>,
  );
  return {
    statuses: exits.statuses.map((status) => {
      const exit = exits.outputs.get(status)!;
      return {
        status,
        fields: Object.entries(exit.properties)
          .filter(([name]) => name !== STATUS_FIELD)
          .map(([name, field]) => formField(name, exit.required.includes(name), field)),
      };
    }),
  };
}

function formField(name: string, required: boolean, schema: unknown): FormField {
  const s = isPlainObject(schema) ? schema : {};
  const types =
    typeof s.type === "string"
      ? [s.type]
      : Array.isArray(s.type)
        ? s.type.filter((t): t is string => typeof t === "string")
        : [];
  const values = Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : null;
  return {
    name,
    required,
    types,
    choices:
      values === null ? null : values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
    description: typeof s.description === "string" ? s.description : null,
  };
}
