/** The JSON Schema dialects uwf validates with (ajv's Ajv, Ajv2019 and Ajv2020 classes). */
export type SchemaDialect = "draft-07" | "2019-09" | "2020-12";

/** The `$schema` URI that selects each dialect. */
export const DIALECT_URIS: Readonly<Record<SchemaDialect, string>> = {
  "draft-07": "http://json-schema.org/draft-07/schema#",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
};

/** The JSON Schema dialect ajv applies to `schema`: what its `$schema` declares, else draft-07. */
export function schemaDialect(schema: { readonly $schema?: unknown }): SchemaDialect {
  const declared = schema.$schema;
  if (typeof declared !== "string") return "draft-07";
  if (declared.includes("2020-12")) return "2020-12";
  if (declared.includes("2019-09")) return "2019-09";
  return "draft-07";
}

/**
 * Keywords that only some dialects have, with the dialects ajv applies them in. In any other
 * ajv (strict mode off) ignores them without a word, so `workflow validate` warns about them.
 * dialects.test.ts checks this table against the installed ajv.
 */
const DIALECT_KEYWORDS: Readonly<Record<string, readonly SchemaDialect[]>> = {
  unevaluatedProperties: ["2019-09", "2020-12"],
  unevaluatedItems: ["2019-09", "2020-12"],
  dependentRequired: ["2019-09", "2020-12"],
  dependentSchemas: ["2019-09", "2020-12"],
  maxContains: ["2019-09", "2020-12"],
  minContains: ["2019-09", "2020-12"],
  $recursiveRef: ["2019-09", "2020-12"],
  $dynamicRef: ["2019-09", "2020-12"],
  prefixItems: ["2020-12"],
  additionalItems: ["draft-07", "2019-09"],
};

/** The dialects that apply `keyword`; undefined for a keyword every dialect has (or none). */
export function dialectsApplying(keyword: string): readonly SchemaDialect[] | undefined {
  return Object.hasOwn(DIALECT_KEYWORDS, keyword) ? DIALECT_KEYWORDS[keyword] : undefined;
}
