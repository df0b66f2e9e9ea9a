import { describe, expect, expectTypeOf, it } from "vitest";
import { documentSchemas } from "./document-schemas.js";
import { type FromSchema, unsupportedKeywords } from "./from-schema.js";
import { BUILTIN_SCHEMAS, suspendOutputSchema } from "./nodes.js";
import { threadPointerSchema } from "./threads.js";

describe("FromSchema", () => {
  it("types scalars, lists of types, const and enum", () => {
    expectTypeOf<FromSchema<{ type: "string" }>>().toEqualTypeOf<string>();
    expectTypeOf<FromSchema<{ type: "integer" }>>().toEqualTypeOf<number>();
    expectTypeOf<FromSchema<{ type: readonly ["string", "null"] }>>().toEqualTypeOf<
      string | null
    >();
    expectTypeOf<FromSchema<{ const: "$SUSPEND" }>>().toEqualTypeOf<"$SUSPEND">();
    expectTypeOf<FromSchema<{ enum: readonly ["a", "b"] }>>().toEqualTypeOf<"a" | "b">();
    expectTypeOf<
      FromSchema<{ anyOf: readonly [{ type: "null" }, { type: "boolean" }] }>
    >().toEqualTypeOf<null | boolean>();
    expectTypeOf<FromSchema<{ type: "array"; items: { type: "number" } }>>().toEqualTypeOf<
      number[]
    >();
    expectTypeOf<FromSchema<{ format: "uri" }>>().toEqualTypeOf<unknown>();
  });

  it("makes listed properties required and the others optional", () => {
    const schema = {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" }, note: { type: "string" } },
    } as const;
    expectTypeOf<FromSchema<typeof schema>>().toEqualTypeOf<{ id: string; note?: string }>();
  });

  it("types maps by their additionalProperties", () => {
    const schema = { type: "object", additionalProperties: { type: "integer" } } as const;
    expectTypeOf<FromSchema<typeof schema>>().toEqualTypeOf<{ [key: string]: number }>();
    expectTypeOf<FromSchema<{ type: "object" }>>().toEqualTypeOf<{ [key: string]: unknown }>();
  });
});

describe("protocol's schemas", () => {
  it("use only keywords FromSchema reads or knows to be value checks", () => {
    const all = {
      ...BUILTIN_SCHEMAS,
      suspendOutputSchema,
      threadPointerSchema,
      ...documentSchemas(),
    };
    for (const [name, schema] of Object.entries(all))
      expect(unsupportedKeywords(schema), name).toEqual([]);
  });

  it("are caught when they use a keyword the types would ignore", () => {
    const schema = { type: "object", properties: { a: { allOf: [] } }, patternProperties: {} };
    expect(unsupportedKeywords(schema)).toEqual(["/properties/a/allOf", "/patternProperties"]);
  });
});
