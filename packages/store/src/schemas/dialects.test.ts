import { describe, expect, it } from "vitest";
import { ajvFor } from "./ajv-loader.js";
import { DIALECT_URIS, dialectsApplying, type SchemaDialect, schemaDialect } from "./dialects.js";

const DIALECTS = Object.keys(DIALECT_URIS) as SchemaDialect[];

/** For each keyword in the table: a schema using it, and a value the keyword alone rejects. */
const CASES: Record<string, (dialect: SchemaDialect) => [Record<string, unknown>, unknown]> = {
  unevaluatedProperties: () => [{ properties: { a: {} }, unevaluatedProperties: false }, { b: 1 }],
  unevaluatedItems: () => [{ unevaluatedItems: false }, [1]],
  dependentRequired: () => [{ dependentRequired: { a: ["b"] } }, { a: 1 }],
  dependentSchemas: () => [{ dependentSchemas: { a: { required: ["b"] } } }, { a: 1 }],
  maxContains: () => [{ contains: { const: 1 }, maxContains: 1 }, [1, 1]],
  minContains: () => [{ contains: { const: 1 }, minContains: 2 }, [1]],
  $recursiveRef: () => [{ type: "object", properties: { c: { $recursiveRef: "#" } } }, { c: 1 }],
  $dynamicRef: () => [{ type: "object", properties: { c: { $dynamicRef: "#" } } }, { c: 1 }],
  prefixItems: () => [{ prefixItems: [{ type: "string" }] }, [1]],
  // additionalItems applies only after a list of `items`, which 2020-12 no longer has.
  additionalItems: (dialect) => [
    { items: dialect === "2020-12" ? {} : [{}], additionalItems: false },
    [1, 2],
  ],
};

describe("dialect keywords", () => {
  it.each(Object.keys(CASES))(
    "%s is applied exactly in the dialects the table names",
    (keyword) => {
      const applied = dialectsApplying(keyword);
      expect(applied).toBeDefined();
      for (const dialect of DIALECTS) {
        const [schema, value] = CASES[keyword]!(dialect);
        const full = { $schema: DIALECT_URIS[dialect], ...schema };
        expect(schemaDialect(full)).toBe(dialect);
        const validate = ajvFor(full).compile(full);
        expect(validate(value), `${keyword} in ${dialect}`).toBe(!applied!.includes(dialect));
      }
    },
  );

  it("knows nothing of keywords every dialect has", () => {
    expect(dialectsApplying("required")).toBeUndefined();
    expect(dialectsApplying("toString")).toBeUndefined();
  });
});
