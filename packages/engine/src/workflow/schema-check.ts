import { isPlainObject, type JsonSchema } from "@united-workforce/protocol";
import { Cas, type CasBackend } from "@united-workforce/store";
import { isUwfError } from "@united-workforce/util";
import { frontmatterNotCompilable, inputsNotCompilable } from "./messages.js";

/** A store that keeps nothing: compiling schemas through it writes no file. */
const discard: CasBackend = {
  read: async () => null,
  write: async () => new Set(),
  has: async () => false,
  withPrefix: async () => [],
  remove: async () => {},
  list: async function* () {},
  locate: (hash) => `(not stored) ${hash}`,
};

/** A CAS that compiles and hashes but keeps nothing (validate, `workflow hash`). */
export function discardingCas(validatorCacheDir?: string): Cas {
  return new Cas(discard, validatorCacheDir === undefined ? {} : { validatorCacheDir });
}

/**
 * Every JSON Schema of a parsed workflow that ajv cannot compile (each role's frontmatter, the
 * inputs), as validation errors. It reads the raw definition, whatever else is wrong with it, so
 * `validate` lists these with every other problem at once; a schema that is not a mapping is the
 * shape check's to report. Checked before anything is stored, so `validate` and `add` agree and
 * a refused `add` leaves no schema node behind.
 */
export async function schemaProblems(
  definition: unknown,
  validatorCacheDir?: string,
  /** Schemas the shape checks already found wrong: not compiled, so each mistake is told once. */
  faulty: { roles: readonly string[]; inputs: boolean } = { roles: [], inputs: false },
): Promise<string[]> {
  if (!isPlainObject(definition)) return [];
  // Compiled validators may still be cached: they are a cache, not stored state, and they spare
  // the next validate of an unchanged schema the compiler's start-up.
  const cas = discardingCas(validatorCacheDir);
  const problems: string[] = [];
  const compile = async (schema: unknown, problem: (reason: string) => string) => {
    if (!isPlainObject(schema)) return;
    try {
      await cas.putSchema(schema as JsonSchema);
    } catch (error) {
      if (!isUwfError(error) || error.code !== "SCHEMA_INVALID") throw error;
      problems.push(problem(readableCompileError(error.message, schema)));
    }
  };
  if (!faulty.inputs) await compile(definition.inputs, inputsNotCompilable);
  if (isPlainObject(definition.roles)) {
    for (const [role, spec] of Object.entries(definition.roles)) {
      if (!isPlainObject(spec) || faulty.roles.includes(role)) continue;
      await compile(spec.frontmatter, (reason) => frontmatterNotCompilable(role, reason));
    }
  }
  return problems;
}

const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];
const DIALECTS = "draft-07 (the default), 2019-09 or 2020-12";

/**
 * ajv's reason, as a user can act on it: the schema's own hash (a name the user never wrote)
 * dropped, its meta-schema errors one per place in the schema (ajv lists every branch of the
 * meta-schema that failed), a misspelt `type` named with the types there are, an unsupported
 * `$schema` with the dialects uwf reads.
 */
export function readableCompileError(message: string, schema: unknown): string {
  const reason = message.replace(/^schema \S+ cannot be compiled: /, "");
  const declared = isPlainObject(schema) ? schema.$schema : undefined;
  if (/^no schema with key or ref "[^"]*"$/.test(reason) && typeof declared === "string") {
    return `$schema "${declared}" is not a dialect uwf reads: use ${DIALECTS}`;
  }
  const badPattern = /^Invalid regular expression: \/[\s\S]*\/\w*: ([\s\S]*)$/.exec(reason);
  if (badPattern !== null) return patternProblem(schema, badPattern[1]!) ?? reason;
  const invalid = /^schema is invalid: ([\s\S]*)$/.exec(reason);
  if (invalid === null) return reason;
  const byPlace = new Map<string, string>();
  for (const part of invalid[1]!.split(/, (?=data[/ ])/)) {
    const found = /^data(\/\S*)? ([\s\S]*)$/.exec(part);
    if (found === null) continue;
    const place = found[1] ?? "";
    if (!byPlace.has(place)) byPlace.set(place, found[2]!);
  }
  if (byPlace.size === 0) return reason;
  // A place with a more precise one under it (a `type` list and its bad entry) adds nothing.
  const places = [...byPlace].filter(
    ([place]) => ![...byPlace.keys()].some((other) => other.startsWith(`${place}/`)),
  );
  return places
    .map(([place, problem]) => {
      const segments = place.split("/").slice(1);
      const at = segments.length === 0 ? "at the top" : `at ${segments.join(".")}`;
      const value = valueAt(schema, segments);
      const inType = segments.at(-1) === "type" || segments.at(-2) === "type";
      if (inType && typeof value === "string") {
        return `${at}: "${value}" is not a JSON Schema type (${JSON_TYPES.join(", ")})`;
      }
      return `${at}: ${problem}`;
    })
    .join("; ");
}

/**
 * ajv names no place for a `pattern` that is not a regular expression; the first one in the
 * schema that does not compile (as ajv compiles them, with the `u` flag) is the one.
 */
function patternProblem(schema: unknown, why: string): string | null {
  const pending: { node: unknown; path: string[] }[] = [{ node: schema, path: [] }];
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    const { node, path } = next;
    if (typeof node !== "object" || node === null) continue;
    for (const [key, value] of Object.entries(node)) {
      const place = [...path, key];
      if (key === "pattern" && typeof value === "string" && !compiles(value)) {
        return `at ${place.join(".")}: ${JSON.stringify(value)} is not a regular expression (${why})`;
      }
      if (key === "patternProperties" && isPlainObject(value)) {
        const bad = Object.keys(value).find((name) => !compiles(name));
        if (bad !== undefined) {
          return `at ${place.join(".")}: ${JSON.stringify(bad)} is not a regular expression (${why})`;
        }
      }
      if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") {
        pending.push({ node: value, path: place });
      }
    }
  }
  return null;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

function valueAt(schema: unknown, segments: string[]): unknown {
  let value = schema;
  for (const segment of segments) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[segment.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return value;
}
