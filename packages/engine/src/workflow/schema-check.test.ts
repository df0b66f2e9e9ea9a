import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAndValidate } from "./resolve.js";
import { schemaProblems } from "./schema-check.js";

const role = (frontmatter: unknown) => ({ roles: { r: { goal: "g", frontmatter } } });

describe("schemaProblems: JSON Schemas ajv cannot compile, as a user can fix them", () => {
  it("names a misspelt type with the types there are, once, at its place in the schema", async () => {
    const problems = await schemaProblems(
      role({ type: "object", properties: { $status: { const: "done" }, n: { type: "integr" } } }),
    );
    expect(problems).toEqual([
      'role "r" frontmatter is not a valid JSON Schema: at properties.n.type: "integr" is not a JSON Schema type (string, number, integer, boolean, object, array, null)',
    ]);
  });

  it("says which dialects uwf reads when $schema names another", async () => {
    const problems = await schemaProblems(
      role({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" }),
    );
    expect(problems).toEqual([
      'role "r" frontmatter is not a valid JSON Schema: $schema "http://json-schema.org/draft-04/schema#" is not a dialect uwf reads: use draft-07 (the default), 2019-09 or 2020-12',
    ]);
  });

  it("lists one problem per place, never the schema's hash", async () => {
    const [problem] = await schemaProblems(
      role({ type: "object", required: "title", properties: { t: { minLength: -1 } } }),
    );
    expect(problem).toContain("at required: must be array");
    expect(problem).toContain("at properties.t.minLength: must be >= 0");
    expect(problem).not.toMatch(/[0-9A-Z]{13}/);
  });

  it("compiles a schema with a format it does not know: validate warns about it instead", async () => {
    const schema = { type: "object", properties: { to: { type: "string", format: "emial" } } };
    expect(await schemaProblems(role(schema))).toEqual([]);
  });

  it("names a bad entry of a type list, and a pattern that is not a regular expression", async () => {
    expect(
      await schemaProblems(
        role({ type: "object", properties: { m: { type: ["string", "numbr"] } } }),
      ),
    ).toEqual([
      'role "r" frontmatter is not a valid JSON Schema: at properties.m.type.1: "numbr" is not a JSON Schema type (string, number, integer, boolean, object, array, null)',
    ]);
    expect(
      await schemaProblems(
        role({ type: "object", properties: { p: { type: "string", pattern: "([" } } }),
      ),
    ).toEqual([
      'role "r" frontmatter is not a valid JSON Schema: at properties.p.pattern: "([" is not a regular expression (Unterminated character class)',
    ]);
  });

  it("leaves schemas that are not mappings to the shape check", async () => {
    expect(await schemaProblems(role("a string"))).toEqual([]);
    expect(await schemaProblems(null)).toEqual([]);
  });
});

describe("loadAndValidate reports schema problems with every other problem", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "uwf-schema-check-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("lists a bad type and an unknown target role in one run", async () => {
    const file = join(dir, "w.yaml");
    writeFileSync(
      file,
      [
        "name: w",
        "roles:",
        "  r:",
        "    goal: g",
        "    frontmatter:",
        "      type: object",
        "      properties: { $status: { const: done }, n: { type: integr } }",
        "      required: [$status]",
        "graph:",
        "  $START: { new: { role: r, prompt: a }, resume: { role: r, prompt: b } }",
        "  r: { done: { role: devloper, prompt: x } }",
        "",
      ].join("\n"),
    );
    const result = await loadAndValidate(file);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      'w.yaml:11:16: edge r→done: unknown target role "devloper"',
      'w.yaml:5:5: role "r" frontmatter is not a valid JSON Schema: at properties.n.type: "integr" is not a JSON Schema type (string, number, integer, boolean, object, array, null)',
    ]);
  });
});
