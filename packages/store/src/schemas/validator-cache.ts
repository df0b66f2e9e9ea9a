import type { JsonSchema } from "@united-workforce/protocol";
import { errorMessage, UwfError } from "@united-workforce/util";
import type { ErrorObject, ValidateFunction } from "ajv";
import { ajvFor } from "./ajv-loader.js";

// Schema nodes are immutable, so a validator compiled for a hash is valid for the whole process.
const validators = new Map<string, ValidateFunction>();

/** The compiled validator of a schema node, compiled at most once per process. */
export function validatorFor(schemaHash: string, schema: JsonSchema): ValidateFunction {
  let validate = validators.get(schemaHash);
  if (validate === undefined) {
    validate = compileSchema(schemaHash, schema);
    validators.set(schemaHash, validate);
  }
  return validate;
}

/** Whether a validator for this schema hash is already compiled in this process. */
export function hasCachedValidator(schemaHash: string): boolean {
  return validators.has(schemaHash);
}

function compileSchema(schemaHash: string, schema: JsonSchema): ValidateFunction {
  const ajv = ajvFor(schema);
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new UwfError(
      "SCHEMA_INVALID",
      `schema ${schemaHash} cannot be compiled: ${errorMessage(error)}`,
      {
        hint: "fix the JSON Schema (draft-07 unless it declares $schema 2019-09 or 2020-12)",
        cause: error,
      },
    );
  } finally {
    // Different schema versions may reuse one $id; keep ajv's registry empty so they never clash.
    ajv.removeSchema(schema);
  }
}

/** Run a validator and return its errors as readable lines such as `/plan: must be string`. */
export function runValidator(
  validate: ValidateFunction,
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
