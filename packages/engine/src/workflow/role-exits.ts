import {
  hiddenCharacter,
  hiddenCharacterProblem,
  isPlainObject,
  STATUS_FIELD,
} from "@united-workforce/protocol";
import { workflowInvalidError } from "./invalid.js";
import { UNDERSCORE_STATUS } from "./messages.js";
import {
  hasOwn,
  mergeProperties,
  propertiesOf,
  requiredOf,
  type SchemaMap,
} from "./schema-shape.js";

/** What an output that leaves a role by one status carries. */
export interface ExitOutput {
  /**
   * Its properties, shared ones merged in and `$status` included, in declaration order: what
   * an edge template may read, what the output-format instruction lists and what extraction
   * keeps.
   */
  properties: SchemaMap;
  /** The properties such an output must carry. */
  required: string[];
}

/** The exits a role's frontmatter schema declares, and what each exit's output carries. */
export interface RoleExits {
  /** Declared statuses, in declaration order. */
  statuses: string[];
  /**
   * True when every status is a `oneOf` variant with fields of its own; false when one
   * `$status` (`const` or `enum`) lists the statuses and every one carries the same fields.
   */
  discriminated: boolean;
  /** Per status: what its output carries. */
  outputs: Map<string, ExitOutput>;
}

/**
 * Read the `$status` declarations of a role's frontmatter: a `const`, an `enum` of strings, or
 * `oneOf` variants each with a `const` (or one-value `enum`) `$status`; top-level `properties`
 * are shared by every variant. Problems are appended to `errors`; null means the statuses
 * could not be determined, so checks that depend on them are skipped (no cascades).
 *
 * This is the only reader of `$status`: workflow validation, the output-format instruction and
 * extraction all take the statuses and fields from here, so they cannot disagree.
 */
export function readRoleExits(
  role: string,
  frontmatter: SchemaMap,
  errors: string[],
): RoleExits | null {
  const where = `role "${role}" frontmatter`;
  const before = errors.length;
  const shared = propertiesOf(frontmatter) ?? {};
  const sharedDeclaration = shared[STATUS_FIELD];
  const oneOf = Array.isArray(frontmatter.oneOf) ? frontmatter.oneOf.filter(isPlainObject) : null;

  if (Array.isArray(frontmatter.anyOf) && frontmatter.anyOf.some(declaresStatus)) {
    errors.push(
      `${where}: "$status" variants must be listed under "oneOf", not "anyOf" (exactly one exit applies to an output)`,
    );
  }

  let exits: RoleExits | null = null;
  const discriminated = oneOf?.some(declaresStatus) ?? false;
  if (oneOf !== null && discriminated) {
    exits = readVariants(where, frontmatter, oneOf, sharedDeclaration, errors);
  } else if (sharedDeclaration === undefined) {
    errors.push(
      oneOf === null
        ? `${where} has no "$status" property: declare the role's exits with "$status": { const: done }, an enum of statuses, or oneOf variants`
        : `${where}: each oneOf variant must declare its "$status" with const`,
    );
  } else {
    const declaration = readDeclaration(where, sharedDeclaration, errors);
    if (declaration.kind === "unlisted") {
      // Routing reads the statuses from the role's own schema; a reference is not followed.
      const ref = isPlainObject(sharedDeclaration) && hasOwn(sharedDeclaration, "$ref");
      errors.push(
        `${where}: "$status" must list its values with const or enum (or use oneOf variants, each with a const "$status")${ref ? `, written in place: its "$ref" is not followed` : ""}`,
      );
    } else if (declaration.kind === "values") {
      const statuses = declaration.values;
      const output = undiscriminatedOutput(frontmatter, oneOf ?? []);
      exits = {
        statuses,
        discriminated: false,
        outputs: new Map(statuses.map((s) => [s, output])),
      };
    }
  }

  checkRequired(where, frontmatter, oneOf, discriminated, errors);
  const onlyUnderscore = errors.slice(before).every((e) => e === UNDERSCORE_STATUS);
  return onlyUnderscore ? exits : null;
}

/**
 * The exits of a role about to run, whose workflow was validated when it was stored: a schema
 * that does not declare its exits (a workflow written to the CAS by other means) is refused
 * with the same messages `uwf workflow validate` gives, instead of being guessed at.
 */
export function requireRoleExits(
  workflow: string,
  role: string,
  frontmatter: SchemaMap,
): RoleExits {
  const errors: string[] = [];
  const exits = readRoleExits(role, frontmatter, errors);
  if (exits === null || errors.length > 0) throw workflowInvalidError(workflow, errors);
  return exits;
}

/**
 * A oneOf without a status discriminant only constrains the shape: any of its fields may be
 * present whatever the status, and a field is required only where every variant requires it.
 */
function undiscriminatedOutput(frontmatter: SchemaMap, oneOf: SchemaMap[]): ExitOutput {
  const properties = mergeProperties(frontmatter, ...oneOf);
  const required = new Set(requiredOf(frontmatter));
  const [first, ...rest] = oneOf.map(requiredOf);
  for (const name of first ?? []) if (rest.every((r) => r.includes(name))) required.add(name);
  return { properties, required: [...required] };
}

function declaresStatus(variant: unknown): boolean {
  const properties = propertiesOf(variant);
  return properties !== null && hasOwn(properties, STATUS_FIELD);
}

function readVariants(
  where: string,
  frontmatter: SchemaMap,
  variants: SchemaMap[],
  sharedDeclaration: unknown,
  errors: string[],
): RoleExits {
  const sharedValues =
    sharedDeclaration === undefined ? null : readDeclaration(where, sharedDeclaration, errors);
  const allowed = sharedValues?.kind === "values" ? sharedValues.values : null;
  const statuses: string[] = [];
  const outputs = new Map<string, ExitOutput>();
  const declaredBy = new Map<string, number>();

  variants.forEach((variant, index) => {
    const at = `${where} oneOf[${index}]`;
    const properties = propertiesOf(variant) ?? {};
    if (!hasOwn(properties, STATUS_FIELD)) {
      errors.push(
        `${at} has no "$status" property: each variant must declare its status with const`,
      );
      return;
    }
    const declaration = readDeclaration(at, properties[STATUS_FIELD], errors);
    if (declaration.kind === "unlisted") {
      errors.push(`${at}: "$status" must be a const (or a one-value enum)`);
      return;
    }
    // Invalid declarations were reported; an empty list means only "_" was declared.
    if (declaration.kind === "invalid" || declaration.values.length === 0) return;
    const declared = declaration.values;
    if (declared.length !== 1) {
      errors.push(
        `${at}: "$status" enum has ${declared.length} values (${declared.join(", ")}); each variant declares exactly one status: use const`,
      );
      return;
    }
    const status = declared[0] as string;
    const earlier = declaredBy.get(status);
    if (earlier !== undefined) {
      errors.push(
        `${where}: status "${status}" is declared by both oneOf[${earlier}] and oneOf[${index}]`,
      );
      return;
    }
    if (allowed !== null && !allowed.includes(status)) {
      errors.push(
        `${at}: status "${status}" is not allowed by the top-level "$status" (${allowed.join(", ")})`,
      );
    }
    declaredBy.set(status, index);
    statuses.push(status);
    outputs.set(status, {
      properties: mergeProperties(frontmatter, variant),
      required: [...new Set([...requiredOf(frontmatter), ...requiredOf(variant)])],
    });
  });
  return { statuses, discriminated: true, outputs };
}

/** What a `$status` schema says: its values, no list at all, or something reported as wrong. */
type Declaration =
  | { kind: "values"; values: string[] }
  | { kind: "unlisted" }
  | { kind: "invalid" };

/**
 * The statuses a `$status` schema allows. `_` is reported and left out, so a stale `_` does
 * not also cascade into graph mismatches.
 */
function readDeclaration(where: string, declaration: unknown, errors: string[]): Declaration {
  if (!isPlainObject(declaration)) {
    errors.push(`${where}: "$status" must be a schema mapping such as { const: done }`);
    return { kind: "invalid" };
  }
  if (declaration.type !== undefined && declaration.type !== "string") {
    errors.push(
      `${where}: "$status" must be a string (found type ${JSON.stringify(declaration.type)})`,
    );
  }
  const hasConst = hasOwn(declaration, "const");
  const hasEnum = hasOwn(declaration, "enum");
  if (hasConst && hasEnum) {
    errors.push(`${where}: "$status" declares both const and enum; use one of them`);
    return { kind: "invalid" };
  }
  let values: unknown[];
  if (hasConst) {
    if (typeof declaration.const !== "string") {
      errors.push(
        `${where}: "$status" const must be a string, found ${JSON.stringify(declaration.const)}`,
      );
      return { kind: "invalid" };
    }
    values = [declaration.const];
  } else if (hasEnum) {
    if (!Array.isArray(declaration.enum) || declaration.enum.length === 0) {
      errors.push(`${where}: "$status" enum must be a non-empty list of strings`);
      return { kind: "invalid" };
    }
    values = declaration.enum;
  } else {
    return { kind: "unlisted" };
  }

  const statuses: string[] = [];
  for (const value of values) {
    if (typeof value !== "string") {
      errors.push(
        `${where}: "$status" enum values must be strings, found ${JSON.stringify(value)}`,
      );
    } else if (value === "_") {
      errors.push(UNDERSCORE_STATUS);
    } else if (value.trim() === "") {
      errors.push(`${where}: "$status" values must not be empty`);
    } else if (hiddenCharacter(value) !== null) {
      errors.push(`${where}: ${hiddenCharacterProblem('"$status" value', value)}`);
    } else if (value.startsWith("$")) {
      errors.push(
        `${where}: "$status" value "${value}" is reserved; statuses may not start with "$" (any agent may answer "$status: $SUSPEND" without declaring it)`,
      );
    } else if (statuses.includes(value)) {
      errors.push(`${where}: "$status" lists "${value}" twice`);
    } else {
      statuses.push(value);
    }
  }
  return { kind: "values", values: statuses };
}

/** An output without `$status` cannot be routed, so the schema must require it. */
function checkRequired(
  where: string,
  frontmatter: SchemaMap,
  oneOf: SchemaMap[] | null,
  discriminated: boolean,
  errors: string[],
): void {
  if (requires(frontmatter)) return;
  if (oneOf !== null && discriminated) {
    oneOf.forEach((variant, index) => {
      if (declaresStatus(variant) && !requires(variant)) {
        errors.push(`${where} oneOf[${index}] must list "$status" in "required"`);
      }
    });
    return;
  }
  errors.push(`${where} must list "$status" in "required"`);
}

function requires(schema: SchemaMap): boolean {
  return requiredOf(schema).includes(STATUS_FIELD);
}
