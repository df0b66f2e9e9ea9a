import { STATUS_FIELD, SUSPEND } from "@united-workforce/protocol";
import { parseFrontmatter } from "@united-workforce/util";
import { declaredStatuses, type SchemaShape, variantFor } from "../schema/shape.js";

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
 * fence), reduced to the fields the schema declares, then validated.
 */
export function extractOutput(text: string, shape: SchemaShape, validate: Validator): Extraction {
  const parsed = parseFrontmatter(text);
  if (parsed.data === null) {
    const reason =
      parsed.error ??
      "no YAML frontmatter found: the reply must start with a `---` line, the fields, and a closing `---` line";
    return { ok: false, errors: [reason], body: parsed.body };
  }
  return checkCandidate(parsed.data, shape, validate, parsed.body);
}

/** Validate an already parsed mapping (the frontmatter, or JSON from the extract model). */
export function checkCandidate(
  data: Record<string, unknown>,
  shape: SchemaShape,
  validate: Validator,
  body: string,
): Extraction {
  const suspend = data[STATUS_FIELD] === SUSPEND;
  const candidate = suspend
    ? { [STATUS_FIELD]: SUSPEND, reason: data.reason }
    : pickSchemaFields(data, shape);
  const own = suspend ? [] : statusProblems(candidate, shape);
  const result = validate(candidate, suspend ? "suspend" : "role");
  if (result.valid && own.length === 0) return { ok: true, output: candidate, body, suspend };
  const errors = [...own, ...result.errors.filter((error) => !own.includes(error))];
  if (suspend && errors.length === 0) errors.push(`"${SUSPEND}" needs a non-empty "reason" string`);
  return { ok: false, errors, body };
}

/**
 * Keep only what the schema declares: the matched variant's fields (shared properties
 * included) and always `$status`. Agents often add chatter fields; dropping them keeps the
 * stored output exactly the role's contract. An open schema keeps everything.
 */
export function pickSchemaFields(
  data: Record<string, unknown>,
  shape: SchemaShape,
): Record<string, unknown> {
  if (shape.open) return { ...data };
  const variant = variantFor(shape, data[STATUS_FIELD]);
  const names = new Set<string>([STATUS_FIELD]);
  const fields = variant ? variant.fields : shape.variants.flatMap((v) => v.fields);
  for (const field of fields) names.add(field.name);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) if (names.has(name)) out[name] = value;
  return out;
}

/** Plain-words errors about `$status` and missing fields, before ajv's more technical ones. */
function statusProblems(candidate: Record<string, unknown>, shape: SchemaShape): string[] {
  const statuses = declaredStatuses(shape);
  const status = candidate[STATUS_FIELD];
  const allowed = [...statuses, SUSPEND].map((s) => `"${s}"`).join(", ");
  if (status === undefined && statuses.length > 0) {
    return [`missing "${STATUS_FIELD}": it must be one of ${allowed}`];
  }
  if (!shape.discriminated) return [];
  const variant = variantFor(shape, status);
  if (!variant)
    return [`"${STATUS_FIELD}" is ${JSON.stringify(status)}; it must be one of ${allowed}`];
  return variant.fields
    .filter((field) => field.required && candidate[field.name] === undefined)
    .map(
      (field) =>
        `missing required field "${field.name}" (required when ${STATUS_FIELD} is "${variant.status}")`,
    );
}
