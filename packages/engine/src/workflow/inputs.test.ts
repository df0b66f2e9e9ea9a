import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { WorkflowDefinition } from "./definition.js";
import { toWorkflowPayload } from "./materialise.js";
import { discardingCas, schemaProblems } from "./schema-check.js";
import { validateWorkflow } from "./validate.js";

/** A workflow reading its inputs from a $START edge and from a role's edge. */
const TRIAGE = `
name: triage
inputs:
  type: object
  properties:
    issue: { type: integer }
    labels: { type: array, items: { type: string } }
    repo: { type: object, properties: { owner: { type: string } } }
  required: [issue]
roles:
  triager:
    frontmatter:
      type: object
      properties:
        $status: { const: done }
        severity: { type: string }
      required: [$status, severity]
graph:
  $START:
    new: { role: triager, prompt: "Triage issue {{{inputs.issue}}} of {{{inputs.repo.owner}}}." }
    resume: { role: triager, prompt: "Again: {{{inputs.issue}}}{{#inputs.labels}} {{{.}}}{{/inputs.labels}}" }
  triager:
    done: { role: $END, prompt: "Issue {{{inputs.issue}}} is {{{severity}}}." }
`;

function check(source: string) {
  return validateWorkflow(parse(source));
}

function variant(...replacements: [string, string][]): string {
  let out = TRIAGE;
  for (const [from, to] of replacements) {
    expect(out).toContain(from);
    out = out.replace(from, to);
  }
  return out;
}

describe("workflow inputs: validation", () => {
  it("accepts inputs read as {{{inputs.<name>}}}, nested and in sections, from any edge", () => {
    const result = check(TRIAGE);
    expect(result.errors).toEqual([]);
    expect(result.definition?.inputs).toMatchObject({ required: ["issue"] });
  });

  it("names an input a template reads that the schema does not declare", () => {
    const result = check(variant(["Issue {{{inputs.issue}}} is", "Issue {{{inputs.isue}}} is"]));
    expect(result.errors).toEqual([
      'prompt variable "inputs.isue" in graph[triager][done] not found in the workflow\'s inputs (did you mean "inputs.issue"?)',
    ]);
    const start = check(variant(["{{{inputs.repo.owner}}}", "{{{inputs.repo.name}}}"]));
    expect(start.errors).toEqual([
      'prompt variable "inputs.repo.name" in graph[$START][new] not found in the workflow\'s inputs (declared: issue, labels, repo)',
    ]);
    // Written as upstream did, without "inputs.": the input meant, or how to write a declared one.
    const bare = check(variant(["{{{inputs.repo.owner}}}", "{{{isue}}} in {{{repo.owner}}}"]));
    expect(bare.errors).toEqual([
      'prompt variable "isue" in graph[$START][new] not found: $START edges are rendered with no output fields: did you mean {{{inputs.issue}}}?',
      'prompt variable "repo.owner" in graph[$START][new] not found: $START edges are rendered with no output fields: write {{{inputs.repo.owner}}}',
    ]);
  });

  it("says a workflow without inputs has none to read", () => {
    const source = variant([
      "inputs:\n  type: object\n  properties:\n    issue: { type: integer }\n    labels: { type: array, items: { type: string } }\n    repo: { type: object, properties: { owner: { type: string } } }\n  required: [issue]\n",
      "",
    ]);
    const result = check(source);
    expect(result.errors).toContain(
      'prompt variable "inputs.issue" in graph[triager][done] not found: the workflow declares no inputs (add an "inputs:" JSON Schema to read {{{inputs.<name>}}})',
    );
    expect(result.errors).toContain(
      'prompt variable "inputs.issue" in graph[$START][new] not found: the workflow declares no inputs (add an "inputs:" JSON Schema to read {{{inputs.<name>}}})',
    );
  });

  it("refuses a role output field named inputs when the workflow declares inputs, instead of shadowing it", () => {
    const result = check(
      variant([
        "severity: { type: string }",
        "severity: { type: string }\n        inputs: { type: string }",
      ]),
    );
    expect(result.errors).toEqual([
      'role "triager" frontmatter declares a field "inputs", but the workflow declares inputs: {{{inputs.…}}} reads the thread\'s inputs, so rename the field',
    ]);
  });

  it("keeps an output field named inputs an ordinary field in a workflow without inputs", () => {
    const result = check(`
name: plain
roles:
  a:
    frontmatter:
      type: object
      properties: { $status: { const: done }, inputs: { type: string } }
      required: [$status, inputs]
graph:
  $START: { new: { role: a, prompt: go }, resume: { role: a, prompt: go } }
  a:
    done: { role: $END, prompt: "{{{inputs}}}" }
`);
    expect(result.errors).toEqual([]);
  });

  it("checks the shape of the inputs schema with precise messages", () => {
    expect(
      check(variant(["inputs:\n  type: object\n", "inputs:\n  type: string\n"])).errors,
    ).toContain('"inputs" must be an object schema (type: object), found type "string"');
    expect(
      check(
        variant([
          "    issue: { type: integer }",
          "    issue: { type: int }\n    a.b: { type: string }\n    c: 3",
        ]),
      ).errors,
    ).toEqual(
      expect.arrayContaining([
        'inputs.properties.issue: type "int" is not a JSON Schema type (string, number, integer, boolean, array, object, null)',
        'inputs: input name "a.b" is invalid: input names start with a letter or "_" and use only letters, digits, "_" and "-" (templates read them as {{{inputs.a.b}}})',
        "inputs.properties.c must be a JSON Schema mapping (e.g. { type: string })",
      ]),
    );
    expect(check(variant(["required: [issue]", "required: [issue, title]"])).errors).toEqual([
      'inputs.required names "title", which inputs.properties does not declare; declare its type under inputs.properties',
    ]);
    expect(
      check(
        variant([
          "inputs:\n  type: object\n  properties:",
          "inputs: [issue]\nignored:\n  properties:",
        ]),
      ).errors,
    ).toContain(
      '"inputs" must be a JSON Schema mapping (type: object, properties: { <name>: { type: … } })',
    );
  });

  it("reports an inputs schema ajv cannot compile", async () => {
    const problems = await schemaProblems({
      inputs: { type: "object", properties: { n: { type: "integer", minimum: "one" } } },
    });
    expect(problems).toEqual([
      '"inputs" is not a valid JSON Schema: at properties.n.minimum: must be number',
    ]);
    expect(await schemaProblems({ roles: {} })).toEqual([]);
  });
});

describe("workflow inputs: the stored workflow", () => {
  it("stores the inputs schema as a schema node and the workflow as the second edition", async () => {
    const cas = discardingCas();
    const definition = check(TRIAGE).definition as WorkflowDefinition;
    const payload = await toWorkflowPayload(cas, definition);
    expect(payload.inputs).toBe(await cas.putSchema(definition.inputs as never));
    const { inputs: _, ...plain } = definition;
    const without = await toWorkflowPayload(cas, plain);
    expect(without.inputs).toBeUndefined();
    // Without inputs the payload is exactly what it always was, so its hash is unchanged.
    expect(Object.keys(without).sort()).toEqual(["graph", "name", "roles"]);
  });
});
