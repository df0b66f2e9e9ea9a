import type { JsonSchema } from "@united-workforce/protocol";
import { canonicalJson, errorMessage, UwfError } from "@united-workforce/util";
import type { ErrorObject } from "ajv";
import type { AnyValidateFunction } from "ajv/dist/types/index.js";
import { ajvFor, installedAjvVersion, standaloneCodeOf } from "./ajv-loader.js";
import { PRECOMPILED_VALIDATORS } from "./builtin-validators.js";
import {
  type CompiledValidator,
  instantiate,
  readCachedValidator,
  runModule,
  writeCachedValidator,
} from "./disk-cache.js";

export type { CompiledValidator } from "./disk-cache.js";

// Schema nodes are immutable, so a validator compiled for a hash is valid for the whole process.
const validators = new Map<string, CompiledValidator>();
const counts = { compiled: 0, fromDisk: 0, precompiled: 0 };

/**
 * The validator of a schema node, built at most once per process: read from `cacheDir` (see
 * disk-cache.ts) when an earlier process compiled it, otherwise compiled with ajv and, when
 * `cacheDir` is given, saved there for later processes.
 */
export function validatorFor(
  schemaHash: string,
  schema: JsonSchema,
  cacheDir?: string,
): CompiledValidator {
  let validate = validators.get(schemaHash);
  if (validate === undefined) {
    validate =
      precompiled(schemaHash) ??
      fromDisk(schemaHash, cacheDir) ??
      compileSchema(schemaHash, schema, cacheDir);
    validators.set(schemaHash, validate);
  }
  return validate;
}

function precompiled(schemaHash: string): CompiledValidator | null {
  const run = PRECOMPILED_VALIDATORS.get(schemaHash);
  const validate = run === undefined ? null : runModule(run);
  if (validate !== null) counts.precompiled++;
  return validate;
}

function fromDisk(schemaHash: string, cacheDir: string | undefined): CompiledValidator | null {
  const cached = cacheDir === undefined ? null : readCachedValidator(cacheDir, schemaHash);
  if (cached !== null) counts.fromDisk++;
  return cached;
}

/**
 * The standalone CommonJS code of a schema's validator, exactly as the disk cache would hold
 * it (compiled from the canonical form), or null when ajv cannot export it. The bundler builds
 * the built-in schemas' validators with this.
 */
export function standaloneValidatorCode(schema: JsonSchema): string | null {
  const ajv = ajvFor(schema);
  const canonical = JSON.parse(canonicalJson(schema)) as JsonSchema;
  try {
    return standaloneCodeOf(ajv, ajv.compile(canonical));
  } catch {
    return null;
  } finally {
    ajv.removeSchema(canonical);
  }
}

/** Whether a validator for this schema hash is already compiled in this process. */
export function hasCachedValidator(schemaHash: string): boolean {
  return validators.has(schemaHash);
}

/** For tests only (the package does not export it): counters, and forgetting like a new process. */
export const validatorCacheInternals = {
  counts: (): { compiled: number; fromDisk: number; precompiled: number } => ({ ...counts }),
  forget(): void {
    validators.clear();
  },
};

function compileSchema(
  schemaHash: string,
  schema: JsonSchema,
  cacheDir?: string,
): CompiledValidator {
  const ajv = ajvFor(schema);
  let canonical: JsonSchema | undefined;
  try {
    let validate: AnyValidateFunction;
    try {
      // Compile the node's canonical form (keys sorted) whatever object the caller holds (a
      // built-in schema keeps its declaration order): the order of errors then depends on the
      // hash alone, as it must for a validator that later processes read from disk.
      canonical = JSON.parse(canonicalJson(schema)) as JsonSchema;
      validate = ajv.compile(canonical);
    } catch (error) {
      throw new UwfError(
        "SCHEMA_INVALID",
        `schema ${schemaHash} cannot be compiled: ${errorMessage(error)}`,
        {
          hint: "fix the JSON Schema (draft-07 unless it declares $schema 2019-09 or 2020-12)",
          cause: error,
        },
      );
    }
    counts.compiled++;
    if (cacheDir !== undefined) saveToDisk(cacheDir, schemaHash, ajv, validate);
    return validate as CompiledValidator;
  } finally {
    // Different schema versions may reuse one $id; keep ajv's registry empty so they never clash.
    if (canonical !== undefined) ajv.removeSchema(canonical);
  }
}

function saveToDisk(
  cacheDir: string,
  schemaHash: string,
  ajv: ReturnType<typeof ajvFor>,
  validate: AnyValidateFunction,
): void {
  let code: string;
  try {
    code = standaloneCodeOf(ajv, validate);
  } catch {
    return; // a feature ajv cannot export: this schema is compiled in every process
  }
  // Keep only code a later process can run; otherwise each would compile and rewrite it.
  if (instantiate(code) === null) return;
  writeCachedValidator(cacheDir, schemaHash, code, installedAjvVersion());
}

/** Run a validator and return its errors as readable lines such as `/plan: must be string`. */
export function runValidator(
  validate: CompiledValidator,
  payload: unknown,
): { valid: boolean; errors: string[] } {
  const valid = validate(payload) === true;
  return { valid, errors: valid ? [] : formatErrors(validate.errors ?? []) };
}

export function formatErrors(errors: readonly ErrorObject[]): string[] {
  return errors.map(
    (error) => `${error.instancePath || "/"}: ${error.message ?? "is invalid"}${detailOf(error)}`,
  );
}

function detailOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return ` (${JSON.stringify(params.additionalProperty)})`;
    case "enum":
      return ` (${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")})`;
    case "const":
      return ` (${JSON.stringify(params.allowedValue)})`;
    default:
      return "";
  }
}
