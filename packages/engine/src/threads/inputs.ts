import { isPlainObject, type JsonValue } from "@united-workforce/protocol";
import { docsUrl, UwfError } from "@united-workforce/util";
import { propertiesOf, type SchemaMap } from "../workflow/schema-shape.js";

/** Where a thread's inputs come from: `--inputs <file>` first, then each `--input key=value`. */
export interface InputSources {
  /** `key=value` pairs in the order given; a later one replaces an earlier one and the file. */
  pairs: readonly string[];
  /** The parsed `--inputs` file and its name for messages. */
  file?: { name: string; values: unknown } | undefined;
  /** How a pair is named in messages; `--input name=value` unless it came from elsewhere. */
  pairLabel?: (name: string, text: string) => string;
}

/**
 * A thread's inputs before validation: the file's mapping with each `--input` laid over it.
 * `--input` values are text on a command line, so each is coerced by the declared type of its
 * property: `integer`/`number` from digits, `boolean` from true|false, `array`/`object`/`null`
 * from JSON, `string` (or no declared type) verbatim. With a list of types, the first one the
 * text reads as wins, `string` last. Every problem is collected into one INPUT_INVALID error.
 */
export function collectThreadInputs(
  workflow: string,
  schema: SchemaMap | null,
  sources: InputSources,
  /** The compiled schema: its problems join the coercion problems in the one error. */
  validate?: Validate,
): Record<string, JsonValue> {
  if (schema === null && (sources.pairs.length > 0 || sources.file !== undefined)) {
    throw new UwfError("INPUT_INVALID", `workflow "${workflow}" declares no inputs`, {
      hint: `Start it without --input/--inputs, or declare them under \`inputs:\` in the workflow (see ${docsUrl("workflow-yaml.md")}).`,
    });
  }
  const problems: string[] = [];
  const label = sources.pairLabel ?? ((name: string, text: string) => `--input ${name}=${text}`);
  const values: Record<string, JsonValue> = {};
  // defineProperty keeps a "__proto__" input an ordinary key, never the object's prototype.
  const set = (name: string, value: JsonValue) =>
    Object.defineProperty(values, name, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  if (sources.file !== undefined) {
    if (!isPlainObject(sources.file.values)) {
      problems.push(
        `--inputs ${sources.file.name}: must hold a mapping of input name to value, found ${describe(sources.file.values)}`,
      );
    } else {
      for (const [name, value] of Object.entries(sources.file.values))
        set(name, value as JsonValue);
    }
  }
  const properties = propertiesOf(schema) ?? {};
  // Inputs given but unreadable: not "missing" as well.
  const unreadable = new Set<string>();
  for (const pair of sources.pairs) {
    const equals = pair.indexOf("=");
    if (equals <= 0) {
      problems.push(`--input "${pair}": write it as name=value`);
      continue;
    }
    const name = pair.slice(0, equals);
    const text = pair.slice(equals + 1);
    const coerced = coerce(text, typesOf(properties[name]));
    if ("problem" in coerced) {
      problems.push(`${label(name, text)}: ${coerced.problem}`);
      unreadable.add(name);
    } else {
      set(name, coerced.value);
    }
  }
  if (schema !== null && validate !== undefined) {
    for (const problem of schemaProblems(values, validate)) {
      if (!unreadable.has(problem.input ?? "")) problems.push(problem.text);
    }
  }
  if (problems.length > 0) throw inputsInvalid(workflow, problems, schema);
  return values;
}

type Validate = (value: unknown) => { valid: boolean; errors: string[] };

/**
 * Check collected inputs against the workflow's schema; `validate` is the compiled schema.
 * ajv's `/issue: must be string` becomes `input "issue": must be string`.
 */
export function checkThreadInputs(
  workflow: string,
  schema: SchemaMap,
  values: Record<string, JsonValue>,
  validate: Validate,
): void {
  const problems = schemaProblems(values, validate).map((problem) => problem.text);
  if (problems.length > 0) throw inputsInvalid(workflow, problems, schema);
}

/** The schema's problems with the inputs, each with the input it is about when it names one. */
function schemaProblems(
  values: Record<string, JsonValue>,
  validate: Validate,
): { text: string; input?: string }[] {
  const { valid, errors } = validate(values);
  if (valid) return [];
  return errors.map((error) => {
    const missing = /^\/: must have required property '(.+)'$/.exec(error);
    if (missing) return { text: `missing required input "${missing[1]}"`, input: missing[1]! };
    const extra = /^\/: must NOT have additional properties \("(.+)"\)$/.exec(error);
    if (extra) {
      return {
        text: `unknown input "${extra[1]}" (the workflow does not declare it)`,
        input: extra[1]!,
      };
    }
    const at = /^\/([^/]+)(\/\S*)?: (.*)$/.exec(error);
    if (at) return { text: `input "${at[1]}${at[2] ?? ""}": ${at[3]}`, input: at[1]! };
    return { text: `inputs${error.slice(1)}` };
  });
}

function inputsInvalid(workflow: string, problems: string[], schema: SchemaMap | null): UwfError {
  const declared = Object.entries(propertiesOf(schema) ?? {}).map(
    ([name, property]) => `${name} (${typesOf(property).join("|") || "any"})`,
  );
  return new UwfError(
    "INPUT_INVALID",
    `invalid inputs for workflow "${workflow}": ${problems.join("; ")}`,
    {
      hint: `Give each input as --input name=value or in an --inputs file; the workflow declares: ${declared.join(", ") || "no named inputs"}. Nothing was started.`,
      details: { errors: problems },
    },
  );
}

function typesOf(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const type = schema.type;
  if (typeof type === "string") return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string");
  return [];
}

type Coerced = { value: JsonValue } | { problem: string };

function coerce(text: string, types: string[]): Coerced {
  if (types.length === 0) return { value: text };
  const failures: string[] = [];
  // `string` accepts anything, so it is tried only after every other declared type.
  const ordered = [...types.filter((t) => t !== "string"), ...types.filter((t) => t === "string")];
  for (const type of ordered) {
    const result = coerceAs(text, type);
    if ("value" in result) return result;
    failures.push(result.problem);
  }
  return { problem: failures.join(", or ") };
}

function coerceAs(text: string, type: string): Coerced {
  const trimmed = text.trim();
  switch (type) {
    case "string":
      return { value: text };
    case "integer":
      return /^[+-]?\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))
        ? { value: Number(trimmed) }
        : { problem: `expected an integer, got "${text}"` };
    case "number": {
      const n = Number(trimmed);
      return trimmed !== "" && Number.isFinite(n)
        ? { value: n }
        : { problem: `expected a number, got "${text}"` };
    }
    case "boolean":
      if (trimmed === "true") return { value: true };
      if (trimmed === "false") return { value: false };
      return { problem: `expected true or false, got "${text}"` };
    case "null":
      return trimmed === "null" ? { value: null } : { problem: `expected null, got "${text}"` };
    case "array":
    case "object": {
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch {
        return { problem: `expected a JSON ${type}, got "${text}"` };
      }
      const ok = type === "array" ? Array.isArray(parsed) : isPlainObject(parsed);
      return ok
        ? { value: parsed as JsonValue }
        : { problem: `expected a JSON ${type}, got "${text}"` };
    }
    default:
      return { value: text };
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}
