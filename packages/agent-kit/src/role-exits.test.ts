import {
  type RoleExits,
  requireRoleExits,
  type SchemaMap,
  validateWorkflow,
} from "@united-workforce/engine";
import type { JsonSchema } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { openHomeStore, type TempHome, tempHome } from "@united-workforce/test-utils";
import { isUwfError } from "@united-workforce/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCandidate, type Validator } from "./extract/extract.js";
import { buildOutputFormatInstruction } from "./prompt/output-format.js";

/**
 * Workflow validation, the output-format instruction and extraction must read a role's
 * `$status` exits the same way, or the prompt asks for outputs the router cannot take (or
 * validation accepts a workflow whose agents can never answer). Each schema below goes through
 * all three, and each must give the expected exits: per status, the fields an output carries
 * (true: required). null: the schema does not declare its exits, and all three refuse it.
 */
const SCHEMAS: { name: string; schema: SchemaMap; exits: Record<string, Fields> | null }[] = [
  {
    name: "a const $status",
    schema: {
      type: "object",
      properties: { $status: { const: "done" }, branch: { type: "string" }, note: {} },
      required: ["$status", "branch"],
    },
    exits: { done: { branch: true, note: false } },
  },
  {
    name: "an enum $status",
    schema: {
      properties: { $status: { enum: ["continue", "conceded"] }, argument: { type: "string" } },
      required: ["$status", "argument"],
    },
    exits: { continue: { argument: true }, conceded: { argument: true } },
  },
  {
    name: "a one-value enum $status",
    schema: { properties: { $status: { enum: ["done"] } }, required: ["$status"] },
    exits: { done: {} },
  },
  {
    name: "oneOf variants with a const $status each",
    schema: {
      oneOf: [
        {
          properties: {
            $status: { const: "ready" },
            plan: { type: "string" },
            repoPath: { type: "string" },
          },
          required: ["$status", "plan"],
        },
        {
          properties: { $status: { const: "insufficient_info" }, reason: { type: "string" } },
          required: ["$status", "reason"],
        },
      ],
    },
    exits: {
      ready: { plan: true, repoPath: false },
      insufficient_info: { reason: true },
    },
  },
  {
    name: "oneOf variants with a one-value enum, shared properties and required",
    schema: {
      properties: { summary: { type: "string" } },
      required: ["$status", "summary"],
      oneOf: [
        { properties: { $status: { enum: ["approved"] } } },
        { properties: { $status: { enum: ["rejected"] }, comments: { type: "string" } } },
      ],
    },
    exits: { approved: { summary: true }, rejected: { summary: true, comments: false } },
  },
  {
    name: "a shared top-level $status enum with oneOf variants",
    schema: {
      properties: { $status: { enum: ["approved", "rejected"] }, summary: { type: "string" } },
      required: ["$status"],
      oneOf: [
        { properties: { $status: { const: "approved" } } },
        {
          properties: { $status: { const: "rejected" }, comments: { type: "string" } },
          required: ["comments"],
        },
      ],
    },
    exits: { approved: { summary: false }, rejected: { summary: false, comments: true } },
  },
  {
    name: "a shared $status with a oneOf that does not name statuses",
    schema: {
      properties: { $status: { enum: ["draft", "final"] }, size: {} },
      required: ["$status"],
      oneOf: [
        { properties: { size: { type: "integer" }, unit: { type: "string" } }, required: ["size"] },
        { properties: { size: { type: "string" }, note: { type: "string" } }, required: ["size"] },
      ],
    },
    exits: {
      draft: { size: true, unit: false, note: false },
      final: { size: true, unit: false, note: false },
    },
  },
  {
    name: "variants under anyOf",
    schema: {
      anyOf: [
        { properties: { $status: { const: "a" } }, required: ["$status"] },
        { properties: { $status: { const: "b" } }, required: ["$status"] },
      ],
    },
    exits: null,
  },
  {
    name: "a oneOf variant without $status",
    schema: {
      oneOf: [
        { properties: { $status: { const: "a" } }, required: ["$status"] },
        { properties: { x: { type: "string" } }, required: ["x"] },
      ],
    },
    exits: null,
  },
  {
    name: "a oneOf variant with several statuses",
    schema: {
      oneOf: [
        { properties: { $status: { enum: ["a", "b"] } }, required: ["$status"] },
        { properties: { $status: { const: "c" } }, required: ["$status"] },
      ],
    },
    exits: null,
  },
  {
    name: "a variant the shared $status does not allow",
    schema: {
      properties: { $status: { enum: ["a"] } },
      required: ["$status"],
      oneOf: [
        { properties: { $status: { const: "a" } } },
        { properties: { $status: { const: "b" } } },
      ],
    },
    exits: null,
  },
  { name: "no $status at all", schema: { type: "object" }, exits: null },
  {
    name: "a $status that lists no values",
    schema: { properties: { $status: { type: "string" } }, required: ["$status"] },
    exits: null,
  },
  {
    name: "a $status const that is not a string",
    schema: { properties: { $status: { const: 3 } }, required: ["$status"] },
    exits: null,
  },
  {
    name: "a $status that is not required",
    schema: { properties: { $status: { const: "done" } } },
    exits: null,
  },
  {
    name: 'the "_" status',
    schema: { properties: { $status: { enum: ["_", "done"] } }, required: ["$status"] },
    exits: null,
  },
];

/** Field name → required, besides `$status`. */
type Fields = Record<string, boolean>;
/** What the prompt and extraction read: per status, its fields; null when they refuse it. */
type Reading = Record<string, Fields> | null;

function mapValues<T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]));
}

let temp: TempHome;
let store: Store;
beforeAll(async () => {
  temp = tempHome();
  store = await openHomeStore(temp.home);
});
afterAll(async () => {
  await store.close();
  temp.cleanup();
});

describe.each(SCHEMAS)("$name", ({ schema, exits: expected }) => {
  it("workflow validation accepts the expected statuses, each edge reading the expected fields", () => {
    const names = expected && mapValues(expected, (fields) => Object.keys(fields));
    expect(readByValidation(schema)).toEqual(names);
  });

  it("the output-format instruction reads the expected exits", () => {
    expect(readByPrompt(schema)).toEqual(expected);
  });

  it("extraction reads the expected exits", async () => {
    expect(await readByExtraction(schema)).toEqual(expected);
  });
});

/** Exits as agent-kit gets them; null where createAgent refuses to run the role. */
function kitExits(schema: SchemaMap): RoleExits | null {
  try {
    return requireRoleExits("agree", "r", schema);
  } catch (error) {
    if (isUwfError(error) && error.code === "WORKFLOW_INVALID") return null;
    throw error;
  }
}

/**
 * Offer validation a graph keyed by every status the schema mentions, each edge reading every
 * field any status declares: the statuses it accepts are the keys it does not call undeclared,
 * and each edge may read what it does not report. Null when it faults the schema itself.
 * (Validation has no notion of a required field besides `$status`.)
 */
function readByValidation(schema: SchemaMap): Record<string, string[]> | null {
  const names = fieldNames(schema);
  const mentioned = mentionedStatuses(schema);
  const edge = { role: "$END", prompt: `Read ${names.map((n) => `{{${n}}}`).join(" ")}.` };
  const result = validateWorkflow({
    name: "agree",
    roles: { r: { frontmatter: schema } },
    graph: {
      $START: { new: { role: "r", prompt: "Go." }, resume: { role: "r", prompt: "Go on." } },
      r: Object.fromEntries(mentioned.map((status) => [status, edge])),
    },
  });
  const undeclared =
    'role "r" graph has status keys its frontmatter does not declare in "$status": ';
  const unreadable = /^prompt variable "([^"]+)" in graph\[r\]\[([^\]]+)\] not found/;
  const schemaErrors = result.errors.filter((e) => e.startsWith('role "r" frontmatter'));
  if (schemaErrors.length > 0 || result.errors.some((e) => e.includes('"_"'))) return null;
  const rejected = result.errors.find((e) => e.startsWith(undeclared))?.slice(undeclared.length);
  const accepted = mentioned.filter((status) => !rejected?.split(", ").includes(status));
  const unread = result.errors
    .map((error) => unreadable.exec(error))
    .filter((match) => match !== null);
  expect(result.errors.length).toBe(unread.length + (rejected === undefined ? 0 : 1));
  return Object.fromEntries(
    accepted.map((status) => [
      status,
      names.filter((name) => !unread.some(([, v, s]) => v === name && s === status)),
    ]),
  );
}

/** The statuses the instruction names and the fields (with markers) it lists for each. */
function readByPrompt(schema: SchemaMap): Reading {
  const exits = kitExits(schema);
  if (exits === null) return null;
  const text = buildOutputFormatInstruction(exits);
  const blocks = [...text.matchAll(/^### When `\$status: ([^`]+)`\n([\s\S]*?)(?=^### )/gm)];
  if (blocks.length > 0) {
    return Object.fromEntries(blocks.map(([, status, block]) => [status, listedFields(block!)]));
  }
  const block = /^### Frontmatter\n([\s\S]*?)(?=^### )/m.exec(text)![1]!;
  const status = /^- `\$status` \(required\): (?:exactly|one of) (.*)$/m.exec(block)![1]!;
  const statuses = [...status.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return Object.fromEntries(statuses.map((s) => [s, listedFields(block)]));
}

function listedFields(block: string): Fields {
  const lines = [...block.matchAll(/^- `([^`]+)` \((required|optional)\)/gm)];
  return Object.fromEntries(
    lines
      .filter(([, name]) => name !== "$status")
      .map(([, name, mark]) => [name, mark === "required"]),
  );
}

/**
 * Offer extraction every status the schema mentions (and one it does not), each with a value
 * for every field any status declares: a status is read when the output is accepted, its
 * fields are what the stored output keeps, and a field is required when leaving it out makes
 * the output invalid.
 */
async function readByExtraction(schema: SchemaMap): Promise<Reading> {
  const exits = kitExits(schema);
  if (exits === null) return null;
  const validate = await validatorFor(schema);
  const full = (status: string): Record<string, unknown> => {
    const properties = exits.outputs.get(status)?.properties ?? {};
    const values = fieldNames(schema).map((name) => [name, sample(properties[name] ?? {})]);
    return { $status: status, ...Object.fromEntries(values) };
  };
  const reading: Record<string, Fields> = {};
  for (const status of [...mentionedStatuses(schema), "not-a-status"]) {
    const accepted = checkCandidate(full(status), exits, validate, "");
    if (!accepted.ok) continue;
    const fields: Fields = {};
    for (const name of Object.keys(accepted.output).filter((n) => n !== "$status")) {
      const without = Object.entries(full(status)).filter(([n]) => n !== name);
      fields[name] = !checkCandidate(Object.fromEntries(without), exits, validate, "").ok;
    }
    reading[status] = fields;
  }
  return reading;
}

async function validatorFor(schema: SchemaMap): Promise<Validator> {
  const check = await store.cas.validator(await store.cas.putSchema(schema as JsonSchema));
  return (candidate) => check(candidate);
}

/** Every property name any branch of the schema declares, `$status` aside. */
function fieldNames(schema: SchemaMap): string[] {
  const names = new Set<string>();
  for (const part of [schema, ...branches(schema)]) {
    for (const name of Object.keys((part.properties as SchemaMap | undefined) ?? {})) {
      if (name !== "$status") names.add(name);
    }
  }
  return [...names];
}

/** Every string a `$status` anywhere in the schema names. */
function mentionedStatuses(schema: SchemaMap): string[] {
  const statuses = new Set<string>();
  for (const part of [schema, ...branches(schema)]) {
    const status = ((part.properties as SchemaMap | undefined)?.$status ?? {}) as SchemaMap;
    for (const value of [status.const, ...((status.enum as unknown[]) ?? [])]) {
      if (typeof value === "string") statuses.add(value);
    }
  }
  return [...statuses];
}

function branches(schema: SchemaMap): SchemaMap[] {
  return [schema.oneOf, schema.anyOf].flatMap((list) => (Array.isArray(list) ? list : []));
}

/** A value the property schema accepts. */
function sample(property: unknown): unknown {
  const schema = property as SchemaMap;
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const byType: Record<string, unknown> = { integer: 1, number: 1, boolean: true, array: [] };
  return byType[schema.type as string] ?? "x";
}
