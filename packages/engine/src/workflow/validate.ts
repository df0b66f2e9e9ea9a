import { END, START, SUSPEND } from "@united-workforce/protocol";
import { checkEdge, checkGraphKeys } from "./check-graph.js";
import { checkShape, type Shape } from "./check-shape.js";
import type { WorkflowDefinition } from "./definition.js";
import { checkFanoutSemantics } from "./fanout-rules.js";
import { checkFileName } from "./file-name.js";
import { guardWarnings } from "./guards.js";
import { checkInputsNotShadowed } from "./inputs.js";
import { checkReachability } from "./reachability.js";
import { type RoleExits, readRoleExits } from "./role-exits.js";
import { schemaKeywordWarnings } from "./schema-lint.js";
import { checkStepRoleSemantics } from "./step-roles.js";

export interface WorkflowValidation {
  valid: boolean;
  /** The declared name when it is a string, valid or not. */
  name: string | null;
  errors: string[];
  warnings: string[];
  /** The definition, typed, only when valid. */
  definition: WorkflowDefinition | null;
  /**
   * The JSON Schemas these checks already found wrong (a role's frontmatter, the inputs): their
   * errors are given, so compiling them would only say the same again in ajv's words.
   */
  faultySchemas: { roles: string[]; inputs: boolean };
}

export interface ValidateOptions {
  /** The file the definition came from; its name must imply the workflow's name. */
  fileName?: string;
}

/**
 * Check a parsed workflow definition and collect every problem: shape first (fields, types,
 * unknown keys), then meaning (statuses, targets, template variables, reachability, the file
 * name). Never throws on bad input.
 */
export function validateWorkflow(
  definition: unknown,
  options: ValidateOptions = {},
): WorkflowValidation {
  const shapeErrors: string[] = [];
  const shape = checkShape(definition, shapeErrors);
  const semanticErrors: string[] = [];
  const warnings: string[] = [];
  const faultySchemas = { roles: [] as string[], inputs: false };
  if (shape !== null) {
    const exits = checkSemantics(shape, options, semanticErrors, warnings);
    faultySchemas.roles = [...exits].filter(([, role]) => role === null).map(([name]) => name);
    faultySchemas.inputs = shape.inputsDeclared && shape.inputs === null;
    // ajv ignores a keyword it does not know: a misspelt `required` would go unnoticed.
    for (const [role, frontmatter] of shape.roles) {
      if (frontmatter !== null)
        warnings.push(...schemaKeywordWarnings(frontmatter, `role "${role}" frontmatter`));
    }
    if (shape.inputs !== null) warnings.push(...schemaKeywordWarnings(shape.inputs, '"inputs"'));
  }

  const errors = unique([...shapeErrors, ...semanticErrors]);
  const valid = errors.length === 0;
  return {
    valid,
    name: shape?.name ?? null,
    errors,
    warnings: unique(warnings),
    definition: valid ? (definition as WorkflowDefinition) : null,
    faultySchemas,
  };
}

/** The meaning pass, over the parts the shape pass found well formed. */
function checkSemantics(
  shape: Shape,
  options: ValidateOptions,
  errors: string[],
  warnings: string[],
): Map<string, RoleExits | null> {
  const exits = new Map<string, RoleExits | null>();
  for (const [role, frontmatter] of shape.roles) {
    exits.set(role, frontmatter === null ? null : readRoleExits(role, frontmatter, errors));
  }
  checkInputsNotShadowed(shape.inputs, exits, errors);
  guardWarnings(shape.maxSteps, shape.maxVisits, warnings);
  for (const [role, spec] of shape.stepRoles) {
    checkStepRoleSemantics(role, spec, exits.get(role) ?? null, errors);
  }

  if (shape.graph !== null) {
    checkGraphKeys(shape, exits, errors);
    for (const edge of shape.edges) checkEdge(edge, shape, exits, errors, warnings);
    checkFanoutSemantics(shape, exits, errors, warnings);
    // An unknown name in the graph is said once: reachability would only add roles it cut off.
    if (shape.graphWellFormed && shape.graph.has(START) && graphNamesKnown(shape)) {
      checkReachability(shape, errors, warnings);
    }
  }
  if (options.fileName !== undefined && shape.name !== null) {
    const mismatch = checkFileName(options.fileName, shape.name);
    if (mismatch !== null) errors.push(mismatch);
  }
  return exits;
}

/** Every graph key and every edge's target (and fan-out child) names a role or a marker. */
function graphNamesKnown(shape: Shape): boolean {
  const known = (name: string) => shape.roles.has(name) || MARKERS.includes(name);
  return (
    [...(shape.graph?.keys() ?? [])].every(known) &&
    shape.edges.every(
      ({ target }) =>
        known(target.role) && (target.fanout?.role === undefined || known(target.fanout.role)),
    )
  );
}

const MARKERS: string[] = [START, END, SUSPEND];

function unique(messages: string[]): string[] {
  return [...new Set(messages)];
}
