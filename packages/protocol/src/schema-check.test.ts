import { Ajv } from "ajv";
import { describe, expect, expectTypeOf, it } from "vitest";
import { documentSchemas } from "./document-schemas.js";
import { BUILTIN_SCHEMAS, GIT_OBJECT_ID_PATTERN, suspendOutputSchema } from "./nodes.js";
import { isPlainObject } from "./plain-object.js";
import { matchesSchema, schemaMismatches } from "./schema-check.js";
import { hashSchema, isoTimeSchema, threadIdSchema } from "./string-schemas.js";
import { type ThreadPointer, threadPointerSchema } from "./threads.js";

/** The problems, and that the type guard agrees there are some. */
function problems(schema: object, value: unknown): string[] {
  const found = schemaMismatches(schema, value);
  expect(matchesSchema(schema, value)).toBe(found.length === 0);
  return found;
}

describe("schemaMismatches: each keyword", () => {
  it("type: one, a list, integer within number, and an array is no object", () => {
    expect(problems({ type: "string" }, "a")).toEqual([]);
    expect(problems({ type: "string" }, 3)).toEqual(["the value is 3, not a string"]);
    expect(problems({ type: ["string", "null"] }, null)).toEqual([]);
    expect(problems({ type: ["string", "null"] }, false)).toEqual([
      "the value is false, not a string or null",
    ]);
    expect(problems({ type: "integer" }, 2)).toEqual([]);
    expect(problems({ type: "integer" }, 2.5)).toEqual(["the value is 2.5, not an integer"]);
    expect(problems({ type: "number" }, 2.5)).toEqual([]);
    expect(problems({ type: "number" }, 2)).toEqual([]);
    expect(problems({ type: ["integer", "boolean"] }, "1")).toEqual([
      'the value is "1", not an integer or a boolean',
    ]);
    expect(problems({ type: "object" }, [])).toEqual([
      "the value is an empty array, not an object",
    ]);
    expect(problems({ type: "array" }, {})).toEqual(["the value is an object, not an array"]);
    expect(problems({ type: "null" }, undefined)).toEqual(["the value is undefined, not null"]);
  });

  it("const and enum, also of objects", () => {
    expect(problems({ const: "$SUSPEND" }, "$SUSPEND")).toEqual([]);
    expect(problems({ const: "$SUSPEND" }, "$END")).toEqual(['the value is "$END", not $SUSPEND']);
    expect(problems({ const: { a: [1, 2] } }, { a: [1, 2] })).toEqual([]);
    expect(problems({ const: { a: [1, 2] } }, { a: [2, 1] })).toHaveLength(1);
    expect(problems({ enum: ["a", "b", 3] }, 3)).toEqual([]);
    expect(problems({ enum: ["a", "b", 3] }, "c")).toEqual(['the value is "c", not a, b or 3']);
  });

  it("anyOf: one that fits is enough; none names them all, or the one of the value's type", () => {
    const schema = { anyOf: [{ type: "string" }, { type: "integer", minimum: 0 }] };
    expect(problems(schema, "x")).toEqual([]);
    expect(problems(schema, 1)).toEqual([]);
    expect(problems(schema, true)).toEqual(["the value is true, not a string or an integer"]);
    expect(problems(schema, -1)).toEqual(["the value is -1, less than 0"]);
  });

  it("oneOf: exactly one, not none and not two", () => {
    const schema = { oneOf: [{ type: "integer" }, { type: "number", minimum: 10 }] };
    expect(problems(schema, 3)).toEqual([]);
    expect(problems(schema, 10.5)).toEqual([]);
    expect(problems(schema, "3")).toEqual(['the value is "3", not an integer or a number']);
    expect(problems(schema, 12)).toEqual([
      "the value is 12, which fits more than one of its choices (an integer; a number), not exactly one",
    ]);
  });

  it("properties and required, with absent optional keys and unknown keys allowed", () => {
    const schema = {
      type: "object",
      required: ["id", "extra"],
      properties: { id: { type: "string" }, note: { type: "string" } },
    };
    expect(problems(schema, { id: "a", extra: null, other: 1 })).toEqual([]);
    expect(problems(schema, { note: 3 })).toEqual([
      "`id` is missing",
      "`note` is 3, not a string",
      "`extra` is missing",
    ]);
  });

  it("reads only own keys: a key named like Object.prototype's is not there by inheritance", () => {
    const schema = { type: "object", required: ["constructor", "toString"] };
    expect(problems(schema, {})).toEqual(["`constructor` is missing", "`toString` is missing"]);
    expect(problems(schema, JSON.parse('{"constructor": 1, "toString": 2}'))).toEqual([]);
  });

  it("additionalProperties: false, a schema, or true", () => {
    const closed = { type: "object", additionalProperties: false, properties: { a: {} } };
    expect(problems(closed, { a: 1 })).toEqual([]);
    expect(problems(closed, { a: 1, b: 2 })).toEqual([
      "the value has a field it does not allow: `b`",
    ]);
    const map = { type: "object", additionalProperties: { type: "integer" } };
    expect(problems(map, { x: 1, y: 2 })).toEqual([]);
    expect(problems(map, { x: 1, y: "2", "z z": null })).toEqual([
      '`y` is "2", not an integer',
      '`["z z"]` is null, not an integer',
    ]);
    expect(problems({ type: "object", additionalProperties: true }, { x: 1 })).toEqual([]);
  });

  it("items, minItems", () => {
    const schema = { type: "array", minItems: 2, items: { type: "string" } };
    expect(problems(schema, ["a", "b"])).toEqual([]);
    expect(problems(schema, ["a", 2])).toEqual(["`[1]` is 2, not a string"]);
    expect(problems(schema, [7])).toEqual([
      "the value has 1 item, fewer than 2",
      "`[0]` is 7, not a string",
    ]);
  });

  it("pattern: named when it is one of uwf's, shown otherwise", () => {
    expect(problems(hashSchema, "0123456789ABC")).toEqual([]);
    expect(problems(hashSchema, "0123456789abc")).toEqual([
      'the value is "0123456789abc", not a CAS hash',
    ]);
    expect(problems(threadIdSchema, "81ARZ3NDEKTSV4RRFFQ69G5FAV")).toEqual([
      'the value is "81ARZ3NDEKTSV4RRFFQ69G5FAV", not a thread id',
    ]);
    expect(problems(isoTimeSchema, "2026-01-01T10:00:00.123Z")).toEqual([]);
    expect(problems(isoTimeSchema, "2026-13-01T10:00:00Z")).toEqual([
      'the value is "2026-13-01T10:00:00Z", not an ISO 8601 time (UTC)',
    ]);
    expect(problems({ type: "string", pattern: "^a+$" }, "ab")).toEqual([
      'the value is "ab", which does not match /^a+$/',
    ]);
    expect(problems({ pattern: "^a+$" }, 3)).toEqual([]);
  });

  it("minimum, maximum, minLength (in characters, not UTF-16 units)", () => {
    const count = { type: "integer", minimum: 0, maximum: 9 };
    expect(problems(count, 0)).toEqual([]);
    expect(problems(count, 9)).toEqual([]);
    expect(problems(count, -1)).toEqual(["the value is -1, less than 0"]);
    expect(problems(count, 10)).toEqual(["the value is 10, more than 9"]);
    const word = { type: "string", minLength: 2 };
    expect(problems(word, "ab")).toEqual([]);
    expect(problems(word, "😀")).toEqual(['the value is "😀", shorter than 2 characters']);
    expect(problems(word, "😀😀")).toEqual([]);
    expect(problems({ minLength: 1 }, "")).toEqual(['the value is "", shorter than 1 character']);
  });

  it("takes $id, title, description and format as notes", () => {
    const schema = { $id: "x", title: "t", description: "d", type: "string", format: "uri" };
    expect(problems(schema, "not a uri")).toEqual([]);
  });

  it("cuts a long string it shows", () => {
    const [problem] = problems({ type: "integer" }, "x".repeat(100));
    expect(problem).toBe(`the value is "${"x".repeat(60)}"…, not an integer`);
  });
});

describe("schemaMismatches: paths", () => {
  const schema = {
    type: "object",
    properties: {
      a: {
        type: "object",
        properties: {
          list: {
            type: "array",
            items: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
          },
        },
      },
      suspended: {
        oneOf: [
          { type: "null" },
          {
            type: "object",
            required: ["kind"],
            properties: { kind: { enum: ["question", "failure"] } },
          },
        ],
      },
    },
  };

  it("names the place of each problem, however deep", () => {
    expect(problems(schema, { a: { list: [{ name: "x" }, { name: 1 }, {}] } })).toEqual([
      "`a.list[1].name` is 1, not a string",
      "`a.list[2].name` is missing",
    ]);
  });

  it("says what is wrong inside the one choice of the value's type", () => {
    expect(problems(schema, { suspended: { kind: "x" } })).toEqual([
      '`suspended.kind` is "x", not question or failure',
    ]);
    expect(problems(schema, { suspended: 3 })).toEqual(["`suspended` is 3, not null or an object"]);
  });
});

describe("schemaMismatches: schemas it cannot read", () => {
  it("refuses a keyword it does not know, anywhere, rather than half-check", () => {
    expect(() => schemaMismatches({ type: "object", allOf: [] }, {})).toThrowError(
      "the schema uses keywords the schema check does not read: /allOf",
    );
    const nested = { properties: { a: { items: { not: {} } } } };
    expect(() => matchesSchema(nested, {})).toThrowError("/properties/a/items/not");
    expect(() => matchesSchema({ patternProperties: {} }, {})).toThrowError("/patternProperties");
  });

  it("refuses a keyword of the wrong shape", () => {
    expect(() => matchesSchema({ type: "text" }, "a")).toThrowError(
      'the schema\'s /type names no JSON type: "text"',
    );
    expect(() => matchesSchema({ type: "toString" }, "a")).toThrowError("names no JSON type");
    expect(() => matchesSchema({ items: [{}] }, [])).toThrowError("/items is not a schema");
    expect(() => matchesSchema({ anyOf: [] }, 1)).toThrowError("/anyOf is not a list of schemas");
    expect(() => matchesSchema({ required: "a" }, {})).toThrowError("/required is not a list");
    expect(() => matchesSchema({ minimum: "1" }, 1)).toThrowError("/minimum is not a number");
  });
});

describe("matchesSchema", () => {
  it("narrows to the schema's derived type", () => {
    const value: unknown = JSON.parse("{}");
    if (matchesSchema(threadPointerSchema, value))
      expectTypeOf(value).toEqualTypeOf<ThreadPointer>();
  });
});

// ─── Every protocol schema, against ajv ─────────────────────────────────────────────────────────

/** A small seeded generator, so a failure reproduces. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  return { next, int, pick };
}
type Random = ReturnType<typeof random>;

const BASE32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const SAMPLES: Record<string, (r: Random) => string> = {
  [hashSchema.pattern]: (r) => Array.from({ length: 13 }, () => r.pick([...BASE32])).join(""),
  [threadIdSchema.pattern]: (r) =>
    r.pick([..."01234567"]) + Array.from({ length: 25 }, () => r.pick([...BASE32])).join(""),
  [isoTimeSchema.pattern]: (r) => new Date(r.int(4e12)).toISOString(),
  [GIT_OBJECT_ID_PATTERN]: (r) =>
    Array.from({ length: 40 }, () => r.pick([..."0123456789abcdef"])).join(""),
};

type Schema = Record<string, unknown>;

/** A value the schema describes (most of the time: ajv is the judge either way). */
function sample(schema: Schema, r: Random, depth = 0): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return r.pick(schema.enum);
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices !== undefined) return sample(r.pick(choices), r, depth + 1);
  const type = Array.isArray(schema.type) ? r.pick(schema.type) : schema.type;
  switch (type) {
    case "string": {
      const pattern = schema.pattern as string | undefined;
      if (pattern !== undefined) return SAMPLES[pattern]?.(r) ?? "?";
      return r
        .pick(["", "a", "hello world", "😀", "$status"])
        .padEnd((schema.minLength as number | undefined) ?? 0, "x");
    }
    case "integer":
      return ((schema.minimum as number | undefined) ?? -5) + r.int(20);
    case "number":
      return r.pick([0, 1.5, -3, 1e6, 0.25]);
    case "boolean":
      return r.next() < 0.5;
    case "null":
      return null;
    case "array": {
      const items = (schema.items as Schema | undefined) ?? {};
      const length = ((schema.minItems as number | undefined) ?? 0) + (depth > 6 ? 0 : r.int(3));
      return Array.from({ length }, () => sample(items, r, depth + 1));
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const required = (schema.required as string[] | undefined) ?? [];
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      for (const [name, inner] of Object.entries(properties)) {
        if (required.includes(name) || (depth < 6 && r.next() < 0.5)) {
          out[name] = sample(inner, r, depth + 1);
        }
      }
      for (const name of required) if (!(name in out)) out[name] = "?";
      const additional = schema.additionalProperties;
      if (isPlainObject(additional) && depth < 6) {
        for (let i = r.int(3); i > 0; i--) out[`k${i}`] = sample(additional, r, depth + 1);
      }
      return out;
    }
    default:
      return r.pick([null, 1, "x", {}, []]);
  }
}

const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  "",
  "x",
  "0123456789ABC",
  [],
  ["x"],
  {},
  { a: 1 },
];

/** `value` with one place changed: replaced by an odd value, removed, or given a stray key. */
function mutate(value: unknown, r: Random): unknown {
  const copy = structuredClone(value);
  const places: { parent: unknown; key: string | number }[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        places.push({ parent: node, key: i });
        walk(item);
      });
    } else if (isPlainObject(node)) {
      for (const [key, inner] of Object.entries(node)) {
        places.push({ parent: node, key });
        walk(inner);
      }
    }
  };
  walk(copy);
  if (places.length === 0) return r.pick(ODD_VALUES);
  const { parent, key } = r.pick(places);
  const move = r.int(4);
  if (move === 0 && isPlainObject(parent)) delete parent[key];
  else if (move === 1 && isPlainObject(parent)) parent.stray = r.pick(ODD_VALUES);
  else (parent as Record<string | number, unknown>)[key] = structuredClone(r.pick(ODD_VALUES));
  return copy;
}

describe("every protocol schema, checked as ajv checks it", () => {
  const schemas: Record<string, Schema> = {
    ...BUILTIN_SCHEMAS,
    suspendOutputSchema,
    threadPointerSchema,
    ...documentSchemas(),
  } as unknown as Record<string, Schema>;
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });

  it.each(Object.keys(schemas))("%s: agrees on valid and mutated values", (name) => {
    const schema = schemas[name]!;
    const { $id: _id, ...anonymous } = schema;
    const validate = ajv.compile(anonymous);
    const r = random(name.length * 7919 + 1);
    let valid = 0;
    let refused = 0;
    for (let round = 0; round < 60; round++) {
      const good = sample(schema, r);
      const values = [good, mutate(good, r), mutate(good, r), mutate(mutate(good, r), r)];
      for (const value of values) {
        const expected = validate(value);
        const found = schemaMismatches(schema, value);
        expect(matchesSchema(schema, value), JSON.stringify(value)).toBe(expected);
        expect(found.length === 0, `${JSON.stringify(value)}: ${found.join("; ")}`).toBe(expected);
        if (expected) valid++;
        else refused++;
      }
    }
    // Both kinds were tried: the samples are mostly valid, the mutations mostly not.
    expect(valid).toBeGreaterThan(20);
    expect(refused).toBeGreaterThan(20);
  });
});
