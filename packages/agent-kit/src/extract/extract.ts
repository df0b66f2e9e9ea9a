import type { ExitOutput, RoleExits } from "@united-workforce/engine/adapter";
import { hiddenCharacterProblem, STATUS_FIELD, SUSPEND } from "@united-workforce/protocol";
import { parseFrontmatter } from "./frontmatter.js";

export interface Validation {
  valid: boolean;
  errors: string[];
}

export type Validator = (
  candidate: Record<string, unknown>,
  kind: "role" | "suspend",
) => Validation;

export type Extraction =
  | { ok: true; output: Record<string, unknown>; body: string; suspend: boolean }
  | { ok: false; errors: string[]; body: string };

/**
 * Read an agent's answer: the frontmatter (tolerating a BOM, blank lines, CRLF and a ```yaml
 * fence), reduced to the fields the role's exits declare, then validated.
 */
/**
 * The longest answer read as a step's output (frontmatter and body). A runaway answer would
 * otherwise be parsed, stored several times over and printed whole; a real one is far shorter.
 */
export const MAX_ANSWER_CHARS = 8 * 1024 * 1024;

export function extractOutput(text: string, exits: RoleExits, validate: Validator): Extraction {
  if (text.length > MAX_ANSWER_CHARS) {
    const mib = (text.length / (1024 * 1024)).toFixed(1);
    return {
      ok: false,
      errors: [
        `the answer is ${mib} MiB, over the ${MAX_ANSWER_CHARS / (1024 * 1024)} MiB an output may be: answer with a shorter body, and write long results to files that the body names`,
      ],
      body: "",
    };
  }
  const parsed = parseFrontmatter(text);
  if (parsed.data === null) {
    const reason =
      parsed.error ??
      "no YAML frontmatter found: the reply must start with a `---` line, the fields, and a closing `---` line";
    return { ok: false, errors: [reason], body: parsed.body };
  }
  return checkCandidate(parsed.data, exits, validate, parsed.body);
}

/** Validate an already parsed mapping (the frontmatter, or JSON from the extract model). */
export function checkCandidate(
  data: Record<string, unknown>,
  exits: RoleExits,
  validate: Validator,
  body: string,
): Extraction {
  const suspend = data[STATUS_FIELD] === SUSPEND;
  const candidate = suspend
    ? { [STATUS_FIELD]: SUSPEND, reason: data.reason }
    : pickSchemaFields(data, exits);
  const own = suspend ? [] : statusProblems(candidate, exits);
  const result = validate(candidate, suspend ? "suspend" : "role");
  if (result.valid && own.length === 0) return { ok: true, output: candidate, body, suspend };
  const errors = [...own, ...result.errors.filter((error) => !own.includes(error))];
  if (suspend && errors.length === 0) errors.push(`"${SUSPEND}" needs a non-empty "reason" string`);
  return { ok: false, errors, body };
}

/**
 * Keep only what the role's exits declare: the fields of the exit the output names (shared
 * properties included; every exit's fields when it names none) and always `$status`. Agents
 * often add chatter fields; dropping them keeps the stored output exactly the role's contract.
 */
export function pickSchemaFields(
  data: Record<string, unknown>,
  exits: RoleExits,
): Record<string, unknown> {
  const output = outputFor(exits, data[STATUS_FIELD]);
  const names = new Set<string>([STATUS_FIELD]);
  for (const { properties } of output ? [output] : exits.outputs.values())
    for (const name of Object.keys(properties)) names.add(name);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) if (names.has(name)) out[name] = value;
  return out;
}

/** Plain-words errors about `$status` and missing fields, before ajv's more technical ones. */
function statusProblems(candidate: Record<string, unknown>, exits: RoleExits): string[] {
  const status = candidate[STATUS_FIELD];
  const allowed = [...exits.statuses, SUSPEND].map((s) => `"${s}"`).join(", ");
  if (status === undefined) return [`missing "${STATUS_FIELD}": it must be one of ${allowed}`];
  const hidden = typeof status === "string" && hiddenCharacterProblem(`"${STATUS_FIELD}"`, status);
  if (hidden) return [`${hidden}; it must be one of ${allowed}, typed without it`];
  const output = outputFor(exits, status);
  if (!output)
    return [`"${STATUS_FIELD}" is ${JSON.stringify(status)}; it must be one of ${allowed}`];
  return output.required
    .filter((name) => candidate[name] === undefined)
    .map(
      (name) => `missing required field "${name}" (required when ${STATUS_FIELD} is "${status}")`,
    );
}

function outputFor(exits: RoleExits, status: unknown): ExitOutput | undefined {
  return typeof status === "string" ? exits.outputs.get(status) : undefined;
}
