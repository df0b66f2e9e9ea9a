import { isPlainObject } from "@united-workforce/protocol";
import { nearestWord } from "@united-workforce/util";
import type { RoleExits } from "./role-exits.js";
import { propertiesOf, type SchemaMap } from "./schema-shape.js";

/**
 * A workflow's `inputs:`: a JSON Schema of the object a thread is started with. Templates read
 * it as `{{{inputs.<name>}}}` in every edge prompt; `thread start --input name=value` coerces
 * values by the declared property types.
 */

/** The name templates read the inputs under; a role output field of this name is refused. */
export const INPUTS_FIELD = "inputs";

export const JSON_TYPES = ["string", "number", "integer", "boolean", "array", "object", "null"];

/** Input names are read as `inputs.<name>` by mustache, which splits names at dots. */
const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Shape rules of `inputs:`; every problem is pushed to `errors`. Returns the schema when it is
 * usable for the semantic checks (template variables), else null.
 */
export function checkInputsShape(raw: unknown, errors: string[]): SchemaMap | null {
  if (raw === undefined) return null;
  if (!isPlainObject(raw)) {
    errors.push(
      '"inputs" must be a JSON Schema mapping (type: object, properties: { <name>: { type: … } })',
    );
    return null;
  }
  const before = errors.length;
  if (raw.type !== undefined && raw.type !== "object") {
    errors.push(
      `"inputs" must be an object schema (type: object), found type ${JSON.stringify(raw.type)}`,
    );
  }
  const properties = raw.properties;
  if (properties !== undefined && !isPlainObject(properties)) {
    errors.push('"inputs.properties" must be a mapping of input name to its JSON Schema');
  }
  const declared = isPlainObject(properties) ? properties : {};
  for (const [name, schema] of Object.entries(declared)) {
    if (!INPUT_NAME.test(name)) {
      errors.push(
        `inputs: input name "${name}" is invalid: input names start with a letter or "_" and use only letters, digits, "_" and "-" (templates read them as {{{inputs.${name}}}})`,
      );
    }
    if (!isPlainObject(schema)) {
      errors.push(
        `inputs.properties.${name} must be a JSON Schema mapping (e.g. { type: string })`,
      );
      continue;
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    for (const type of types) {
      if (type !== undefined && !(typeof type === "string" && JSON_TYPES.includes(type))) {
        errors.push(
          `inputs.properties.${name}: type ${JSON.stringify(type)} is not a JSON Schema type (${JSON_TYPES.join(", ")})`,
        );
      }
    }
  }
  const required = raw.required;
  if (required !== undefined) {
    if (!(Array.isArray(required) && required.every((r) => typeof r === "string"))) {
      errors.push('"inputs.required" must be a list of input names');
    } else {
      for (const name of required) {
        if (!Object.hasOwn(declared, name)) {
          errors.push(
            `inputs.required names "${name}", which inputs.properties does not declare; declare its type under inputs.properties`,
          );
        }
      }
    }
  }
  return errors.length === before ? raw : null;
}

/**
 * A workflow declaring inputs reserves the output field `inputs`: `{{{inputs.x}}}` always reads
 * the thread's inputs, so a role whose output also had an `inputs` field would be shadowed
 * without a word. Such a role is an error, not a silent precedence.
 */
export function checkInputsNotShadowed(
  inputs: SchemaMap | null,
  exits: ReadonlyMap<string, RoleExits | null>,
  errors: string[],
): void {
  if (inputs === null) return;
  for (const [role, declared] of exits) {
    if (declared === null) continue;
    const shadowing = [...declared.outputs].filter(([, output]) =>
      Object.hasOwn(output.properties, INPUTS_FIELD),
    );
    if (shadowing.length > 0) {
      errors.push(
        `role "${role}" frontmatter declares a field "${INPUTS_FIELD}", but the workflow declares inputs: {{{inputs.…}}} reads the thread's inputs, so rename the field`,
      );
    }
  }
}

/**
 * The fields a template may read beside an output's: `inputs` when the workflow declares them.
 * Declared but malformed inputs (already an error) are read as open, not reported again.
 */
export function inputsFields(inputs: SchemaMap | null, declared: boolean): SchemaMap {
  if (inputs !== null) return { [INPUTS_FIELD]: inputs };
  return declared ? { [INPUTS_FIELD]: true } : {};
}

/**
 * A clearer message for a template variable under `inputs` that was not found, or null when
 * the variable is not about inputs (or an output field named `inputs` is what it read).
 */
export function inputsVariableProblem(
  variable: string,
  field: "prompt" | "location",
  where: string,
  inputs: SchemaMap | null,
): string | null {
  const [head, name] = variable.split(".");
  if (head !== INPUTS_FIELD) return null;
  if (inputs === null) {
    return `${field} variable "${variable}" in ${where} not found: the workflow declares no inputs (add an "inputs:" JSON Schema to read {{{inputs.<name>}}})`;
  }
  if (name === undefined) return null;
  const declared = Object.keys(propertiesOf(inputs) ?? {});
  const near = nearestWord(name, declared);
  if (near !== undefined) {
    return `${field} variable "${variable}" in ${where} not found in the workflow's inputs (did you mean "inputs.${near}"?)`;
  }
  return `${field} variable "${variable}" in ${where} not found in the workflow's inputs (declared: ${declared.length === 0 ? "none" : declared.join(", ")})`;
}

/** The `inputs:` schema as ajv sees it: a message when it cannot compile, else null. */
