import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { schemaKeywordWarnings } from "./schema-lint.js";

const WHERE = 'role "r" frontmatter';

function warnings(yaml: string): string[] {
  return schemaKeywordWarnings(parse(yaml), WHERE);
}

/** Only the keyword and path of each unknown keyword, for tests about where the walk goes. */
function found(yaml: string): string[] {
  const unknown = warnings(yaml).filter((message) => message.includes("unknown JSON Schema"));
  return unknown.map((message) => {
    const [, keyword, path] = /keyword "(.*)" at (.*?)(?: \(did you mean|;)/.exec(message) ?? [];
    return `${keyword} at ${path}`;
  });
}

describe("schemaKeywordWarnings", () => {
  it("names each misspelt keyword, where it is, and the keyword it most likely means", () => {
    expect(
      warnings(`
type: object
properties:
  title: { type: string, minLenght: 3 }
  tags: { tyep: array, items: { type: string } }
requird: [title]
`),
    ).toEqual([
      'role "r" frontmatter: unknown JSON Schema keyword "requird" at the top (did you mean "required"?); ajv ignores it',
      'role "r" frontmatter: unknown JSON Schema keyword "minLenght" at properties.title (did you mean "minLength"?); ajv ignores it',
      'role "r" frontmatter: unknown JSON Schema keyword "tyep" at properties.tags (did you mean "type"?); ajv ignores it',
    ]);
  });

  it("suggests the keyword a differently cased one means", () => {
    expect(warnings("{ type: string, MinLength: 3, MAXLENGTH: 9 }")).toEqual([
      'role "r" frontmatter: unknown JSON Schema keyword "MinLength" at the top (did you mean "minLength"?); ajv ignores it',
      'role "r" frontmatter: unknown JSON Schema keyword "MAXLENGTH" at the top (did you mean "maxLength"?); ajv ignores it',
    ]);
  });

  it("offers the x- prefix when no keyword is near", () => {
    expect(warnings("{ type: string, colour: red, ab: 1 }")).toEqual([
      'role "r" frontmatter: unknown JSON Schema keyword "colour" at the top; ajv ignores it (prefix it with "x-" if it is an annotation of yours)',
      'role "r" frontmatter: unknown JSON Schema keyword "ab" at the top; ajv ignores it (prefix it with "x-" if it is an annotation of yours)',
    ]);
  });

  it("catches text a comma cut off an unquoted description in a { … } mapping", () => {
    expect(warnings("{ type: string, description: The greeting, as it should be read. }")).toEqual([
      'role "r" frontmatter: unknown JSON Schema keyword "as it should be read." at the top; ajv ignores it (prefix it with "x-" if it is an annotation of yours)',
    ]);
  });

  it("reads the names under properties as names, not keywords", () => {
    expect(
      found(`
type: object
properties:
  requird: { type: string }
  tyep: { tyep: string }
  "a.b": { minLenght: 1 }
required: [requird]
`),
    ).toEqual(["tyep at properties.tyep", 'minLenght at properties["a.b"]']);
  });

  it("leaves x- keywords alone, and does not read inside them", () => {
    expect(
      warnings('{ type: string, x-widget: textarea, x-ui: { requird: true }, "x-": 1 }'),
    ).toEqual([]);
  });

  it("does not read values as schemas", () => {
    expect(
      warnings(`
$schema: https://json-schema.org/draft/2019-09/schema
type: object
properties:
  a: { enum: [{ requird: 1 }, tyep] }
  b: { const: { minLenght: 3 } }
  c: { default: { tyep: x }, examples: [{ requird: [] }] }
  d: { type: string, pattern: "^requird$", format: date }
required: [a, requird]
dependentRequired: { a: [tyep] }
dependencies: { b: [requird] }
$vocabulary: { "https://example.com/requird": true }
`),
    ).toEqual([]);
  });

  it("reads every place that holds a schema", () => {
    expect(
      found(`
$defs: { name: { tyep: string } }
definitions: { old: { tyep: string } }
properties:
  list: { type: array, items: { tyep: string }, contains: { minimun: 1 } }
  pair: { items: [{ tyep: string }], additionalItems: { tyep: number } }
  tuple: { prefixItems: [true, { tyep: string }], unevaluatedItems: { tyep: null } }
  map:
    patternProperties: { "^x": { tyep: string } }
    additionalProperties: { tyep: number }
    unevaluatedProperties: { tyep: boolean }
    propertyNames: { patern: "^[a-z]+$" }
allOf: [{ requird: [a] }]
anyOf: [{}, { requird: [b] }]
oneOf: [{ requird: [c] }]
not: { requird: [d] }
if: { requird: [e] }
then: { requird: [f] }
else: { requird: [g] }
dependentSchemas: { a: { requird: [h] } }
dependencies: { b: { requird: [i] }, c: [a] }
contentSchema: { tyep: object }
`),
    ).toEqual([
      "tyep at $defs.name",
      "tyep at definitions.old",
      "tyep at properties.list.items",
      "minimun at properties.list.contains",
      "tyep at properties.pair.items[0]",
      "tyep at properties.pair.additionalItems",
      "tyep at properties.tuple.prefixItems[1]",
      "tyep at properties.tuple.unevaluatedItems",
      'tyep at properties.map.patternProperties["^x"]',
      "tyep at properties.map.additionalProperties",
      "tyep at properties.map.unevaluatedProperties",
      "patern at properties.map.propertyNames",
      "requird at allOf[0]",
      "requird at anyOf[1]",
      "requird at oneOf[0]",
      "requird at not",
      "requird at if",
      "requird at then",
      "requird at else",
      "requird at dependentSchemas.a",
      "requird at dependencies.b",
      "tyep at contentSchema",
    ]);
  });

  it("finds nothing in a schema that uses only real keywords", () => {
    expect(
      warnings(`
$schema: https://json-schema.org/draft/2020-12/schema
$id: https://example.com/out
$comment: the agent's report
title: Report
description: What the agent did
type: object
$defs:
  status: { $anchor: status, enum: [done, blocked], default: done, deprecated: false }
properties:
  $status: { $ref: "#/$defs/status" }
  summary: { type: string, minLength: 1, maxLength: 200, readOnly: true, writeOnly: false }
  files:
    type: array
    items: { type: string, format: uri-reference, contentMediaType: text/plain, contentEncoding: base64 }
    minItems: 0
    maxItems: 50
    uniqueItems: true
    contains: { const: README.md }
    minContains: 0
    maxContains: 1
  score: { type: number, minimum: 0, maximum: 1, exclusiveMinimum: -1, exclusiveMaximum: 2, multipleOf: 0.1 }
  note: { type: string, nullable: true, examples: [fine] }
required: [$status, summary]
minProperties: 2
maxProperties: 9
dependentRequired: { score: [summary] }
unevaluatedProperties: false
x-ui: { order: [summary] }
`),
    ).toEqual([]);
  });

  it("never throws, and finds nothing in what is not a schema", () => {
    for (const odd of [null, undefined, "requird", 42, true, [], [{ requird: [] }]]) {
      expect(schemaKeywordWarnings(odd, WHERE)).toEqual([]);
    }
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    expect(schemaKeywordWarnings({ tyep: "x", not: revoked.proxy }, WHERE)).toHaveLength(1);
  });

  it("walks deep and wide schemas without overflowing, and a node nested in itself once", () => {
    let deep: Record<string, unknown> = { tyep: "string" };
    for (let i = 0; i < 20_000; i++) deep = { not: deep };
    expect(schemaKeywordWarnings(deep, WHERE)).toHaveLength(1);

    const wide = { allOf: Array.from({ length: 200_000 }, () => ({ type: "string" })) };
    wide.allOf.push({ tyep: "string" } as never);
    expect(schemaKeywordWarnings(wide, WHERE)).toEqual([
      'role "r" frontmatter: unknown JSON Schema keyword "tyep" at allOf[200000] (did you mean "type"?); ajv ignores it',
    ]);

    const looped = parse("&a { requird: [x], items: *a }");
    expect(looped.items).toBe(looped);
    expect(found("&a { requird: [x], items: *a }")).toEqual(["requird at the top"]);
  });

  it("warns about a keyword the schema's dialect does not have, and says which one does", () => {
    expect(
      warnings(`
type: object
properties:
  tags: { type: array, prefixItems: [{ type: string }] }
unevaluatedProperties: false
`),
    ).toEqual([
      'role "r" frontmatter: JSON Schema keyword "unevaluatedProperties" at the top is not part of draft-07, the dialect of a schema without "$schema"; ajv ignores it (it needs "$schema: https://json-schema.org/draft/2020-12/schema")',
      'role "r" frontmatter: JSON Schema keyword "prefixItems" at properties.tags is not part of draft-07, the dialect of a schema without "$schema"; ajv ignores it (it needs "$schema: https://json-schema.org/draft/2020-12/schema")',
    ]);
    expect(
      warnings(`
$schema: https://json-schema.org/draft/2020-12/schema
type: array
items: { type: string }
additionalItems: false
unevaluatedItems: false
`),
    ).toEqual([
      'role "r" frontmatter: JSON Schema keyword "additionalItems" at the top is not part of 2020-12, the dialect this schema declares; ajv ignores it (in 2020-12, "items" next to "prefixItems" does its job)',
    ]);
    expect(
      warnings("{ $schema: 'https://json-schema.org/draft/2019-09/schema', prefixItems: [] }"),
    ).toEqual([
      'role "r" frontmatter: JSON Schema keyword "prefixItems" at the top is not part of 2019-09, the dialect this schema declares; ajv ignores it (it needs "$schema: https://json-schema.org/draft/2020-12/schema")',
    ]);
  });

  it("warns about a format it does not check, with a suggestion when one is near", () => {
    expect(
      schemaKeywordWarnings(
        { properties: { to: { format: "emial" }, notes: { format: "markdown" } } },
        'role "r" frontmatter',
      ),
    ).toEqual([
      'role "r" frontmatter: unknown format "emial" at properties.to (did you mean "email"?); values are not checked against it',
      'role "r" frontmatter: unknown format "markdown" at properties.notes; values are not checked against it',
    ]);
    expect(schemaKeywordWarnings({ format: "cas-ref" }, "w")).toEqual([]);
  });
});
