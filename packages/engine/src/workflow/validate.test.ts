import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { loadWorkflowFile } from "./load.js";
import { validateWorkflow } from "./validate.js";

const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));
const FORMAT_DOC = fileURLToPath(new URL("../../../../docs/workflow-yaml.md", import.meta.url));

/** A small valid workflow; tests replace parts of it to make one thing wrong at a time. */
const REVIEW_LOOP = `
name: review-loop
roles:
  developer:
    frontmatter:
      type: object
      properties:
        $status: { const: done }
        branch: { type: string }
        meta:
          type: object
          properties:
            commit: { type: object, properties: { sha: { type: string } } }
      required: [$status, branch]
  reviewer:
    frontmatter:
      properties:
        summary: { type: string }
      required: [$status]
      oneOf:
        - properties:
            $status: { const: approved }
        - properties:
            $status: { const: rejected }
            comments: { type: array, items: { type: object, properties: { file: { type: string } } } }
graph:
  $START:
    new: { role: developer, prompt: "Implement the task." }
    resume: { role: developer, prompt: "Continue." }
  developer:
    done: { role: reviewer, prompt: "Review {{{branch}}} at {{meta.commit.sha}}.", location: "{{{branch}}}" }
  reviewer:
    approved: { role: $END, prompt: "Approved: {{{summary}}}" }
    rejected: { role: developer, prompt: "Fix:{{#comments}} {{{file}}}{{/comments}} ({{summary}})" }
`;

function check(source: string, fileName?: string) {
  return validateWorkflow(parse(source), fileName === undefined ? {} : { fileName });
}

/** Replace exact text in the base workflow, failing loudly if the text is not there. */
function variant(...replacements: [string, string][]): string {
  let out = REVIEW_LOOP;
  for (const [from, to] of replacements) {
    expect(out).toContain(from);
    out = out.replace(from, to);
  }
  return out;
}

describe("validateWorkflow", () => {
  test("accepts a valid workflow and returns its typed definition", () => {
    const result = check(REVIEW_LOOP, "/any/where/review-loop.yaml");
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result).toMatchObject({ valid: true, name: "review-loop" });
    expect(result.definition?.roles.developer?.frontmatter).toBeDefined();
  });

  test("every example in examples/ validates with no errors and no warnings", () => {
    const files = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const loaded = loadWorkflowFile(join(EXAMPLES, file));
      const result = validateWorkflow(loaded.definition, { fileName: loaded.path });
      expect({ file, errors: result.errors, warnings: result.warnings }).toEqual({
        file,
        errors: [],
        warnings: [],
      });
    }
  });

  test("the complete example in docs/workflow-yaml.md validates", () => {
    const doc = readFileSync(FORMAT_DOC, "utf8");
    const example = /## A complete example\n\n```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const result = check(example as string, "/docs/solve-issue.yaml");
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  describe("shape", () => {
    test("a non-mapping definition", () => {
      expect(validateWorkflow(["a"]).errors).toEqual([
        "a workflow must be a mapping with name, roles and graph",
      ]);
    });

    test("missing fields", () => {
      expect(validateWorkflow({}).errors).toEqual([
        'missing required field "name"',
        'missing required field "roles"',
        'missing required field "graph"',
      ]);
    });

    test("missing edge fields, wrong types and unknown keys", () => {
      const result = check(
        variant(
          ["approved: { role: $END, prompt", "approved: { role: $END, promt"],
          ["name: review-loop", "name: review-loop\nversoin: 1"],
          ["  developer:\n    frontmatter", "  developer:\n    goal: [1]\n    frontmatter"],
        ),
      );
      expect(result.errors).toEqual([
        'unknown top-level key "versoin" (did you mean "version"?)',
        'role "developer": "goal" must be a string',
        'graph[reviewer][approved]: unknown key "promt" (did you mean "prompt"?)',
        'graph[reviewer][approved]: missing required field "prompt"',
      ]);
    });

    test("version 1 is accepted, any other version refused with the versions uwf reads", () => {
      expect(check(`version: 1\n${REVIEW_LOOP}`, "/w/review-loop.yaml").errors).toEqual([]);
      for (const [written, shown] of [
        ["2", "2"],
        ['"1"', '"1"'],
        ["0.4", "0.4"],
      ]) {
        expect(check(`version: ${written}\n${REVIEW_LOOP}`, "/w/review-loop.yaml").errors).toEqual([
          `"version" is ${shown}, but uwf reads workflow format version 1: write "version: 1" or leave the line out`,
        ]);
      }
    });

    test("top-level x- keys are the author's own: allowed and ignored", () => {
      const anchored = `x-done: &done { type: string }\nx-notes: [any, thing]\n${REVIEW_LOOP}`;
      const result = check(anchored, "/w/review-loop.yaml");
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
    });

    test("a frontmatter that is not an object schema", () => {
      const result = validateWorkflow({
        name: "x",
        roles: { a: { frontmatter: { type: "string" } }, b: { frontmatter: "text" } },
        graph: {},
      });
      expect(result.errors).toContain(
        'role "a": "frontmatter" must be an object schema (type: object), found type "string"',
      );
      expect(result.errors).toContain('role "b": "frontmatter" must be a JSON Schema mapping');
    });

    test("invalid workflow and role names, reserved role names", () => {
      const result = check(
        variant(
          ["name: review-loop", "name: review loop"],
          ["  reviewer:\n", "  $END:\n    frontmatter: {}\n  reviewer:\n"],
        ),
      );
      expect(result.errors).toContain(
        'workflow name "review loop" is invalid: names start with a letter or digit and use only letters, digits, ".", "_" and "-"',
      );
      expect(result.errors).toContain(
        'role name "$END" is reserved: role names may not start with "$"',
      );
    });
  });

  describe("statuses", () => {
    test("$START without resume", () => {
      const result = check(variant(['    resume: { role: developer, prompt: "Continue." }\n', ""]));
      expect(result.errors).toEqual(['$START must have edges with statuses "new" and "resume"']);
    });

    test("$START with an extra status, and a $START that targets $END", () => {
      const result = check(
        variant([
          '    resume: { role: developer, prompt: "Continue." }\n',
          '    resume: { role: $END, prompt: "Continue." }\n    again: { role: developer, prompt: "x" }\n',
        ]),
      );
      expect(result.errors).toEqual([
        '$START may only have the statuses "new" and "resume"; remove: again',
        "edge $START→resume: $START edges must target a role, not $END",
      ]);
    });

    test("a missing $START", () => {
      const source = variant([
        '  $START:\n    new: { role: developer, prompt: "Implement the task." }\n    resume: { role: developer, prompt: "Continue." }\n',
        "",
      ]);
      expect(check(source).errors).toEqual([
        '$START must have edges with statuses "new" and "resume"',
      ]);
    });

    test('the "_" status, in the graph and in a schema', () => {
      const result = check(
        variant(
          ["$status: { const: done }", "$status: { enum: [_, done] }"],
          [
            "    new: { role: developer",
            "    _: { role: developer, prompt: x }\n    new: { role: developer",
          ],
        ),
      );
      expect(result.errors).toEqual([
        'status key "_" is no longer valid: use explicit statuses (see uwf prompt workflow-authoring)',
      ]);
    });

    test("graph keys that miss or add statuses", () => {
      const result = check(
        variant([
          '    approved: { role: $END, prompt: "Approved: {{{summary}}}" }\n',
          '    maybe: { role: $END, prompt: "Hm." }\n',
        ]),
      );
      expect(result.errors).toEqual([
        'role "reviewer" graph is missing status keys: approved',
        'role "reviewer" graph has status keys its frontmatter does not declare in "$status": maybe',
      ]);
    });

    test("a misspelt status key is matched to the declared status it misses", () => {
      const result = check(variant(["    approved: { role: $END", "    aproved: { role: $END"]));
      expect(result.errors).toEqual([
        'role "reviewer" graph is missing status keys: approved',
        'role "reviewer" graph has status keys its frontmatter does not declare in "$status": aproved (did you mean "aproved" → "approved"?)',
      ]);
    });

    test("status keys YAML reads as a null or a number: quoted in the message, with a hint", () => {
      const result = check(
        variant(
          ["$status: { const: done }", '$status: { enum: ["200", "true", "null", "1.0"] }'],
          [
            '    done: { role: reviewer, prompt: "Review {{{branch}}} at {{meta.commit.sha}}.", location: "{{{branch}}}" }\n',
            '    200: { role: reviewer, prompt: "a" }\n    true: { role: reviewer, prompt: "b" }\n    null: { role: reviewer, prompt: "c" }\n    1.0: { role: reviewer, prompt: "d" }\n',
          ],
        ),
      );
      expect(result.errors).toEqual([
        'role "developer" graph is missing status keys: null, 1.0; YAML reads an unquoted key null, 1.0 as a null, a boolean or a number, not as that word: quote it in the graph ("null": …)',
        'role "developer" graph has status keys its frontmatter does not declare in "$status": 1, ""',
      ]);
    });

    test("a role without $status, a const that is not a string, const with enum", () => {
      const result = validateWorkflow(
        parse(
          variant(
            ["$status: { const: done }", "$status: { const: 3 }"],
            [
              "  reviewer:\n",
              "  other:\n    frontmatter: { properties: { x: { type: string } } }\n  both:\n    frontmatter: { properties: { $status: { const: a, enum: [a] } }, required: [$status] }\n  reviewer:\n",
            ],
          ),
        ),
      );
      expect(result.errors).toContain(
        'role "developer" frontmatter: "$status" const must be a string, found 3',
      );
      expect(result.errors).toContain(
        'role "other" frontmatter has no "$status" property: declare the role\'s exits with "$status": { const: done }, an enum of statuses, or oneOf variants',
      );
      expect(result.errors).toContain('role "other" frontmatter must list "$status" in "required"');
      expect(result.errors).toContain(
        'role "both" frontmatter: "$status" declares both const and enum; use one of them',
      );
    });

    test("oneOf variants: several values in a variant, a missing $status, a duplicate status", () => {
      const result = check(
        variant(
          ["$status: { const: approved }", "$status: { enum: [approved, ok] }"],
          [
            "            comments: { type: array",
            "            note: { type: string }\n        - properties:\n            $status: { const: rejected }\n        - properties:\n            x: { type: string }\n        - properties:\n            $status: { const: rejected }\n            comments: { type: array",
          ],
        ),
      );
      expect(result.errors).toEqual([
        'role "reviewer" frontmatter oneOf[0]: "$status" enum has 2 values (approved, ok); each variant declares exactly one status: use const',
        'role "reviewer" frontmatter: status "rejected" is declared by both oneOf[1] and oneOf[2]',
        'role "reviewer" frontmatter oneOf[3] has no "$status" property: each variant must declare its status with const',
        'role "reviewer" frontmatter: status "rejected" is declared by both oneOf[1] and oneOf[4]',
      ]);
    });

    test("a $status given by $ref says the reference is not followed", () => {
      const result = check(
        variant(["$status: { const: done }", '$status: { $ref: "#/$defs/st" }']),
      );
      expect(result.errors).toContain(
        'role "developer" frontmatter: "$status" must list its values with const or enum (or use oneOf variants, each with a const "$status"), written in place: its "$ref" is not followed',
      );
    });

    test("a flat $status that lists no values, a $status under anyOf", () => {
      const result = check(
        variant(
          ["$status: { const: done }", "$status: { type: string }"],
          ["      oneOf:", "      anyOf:"],
        ),
      );
      expect(result.errors).toContain(
        'role "developer" frontmatter: "$status" must list its values with const or enum (or use oneOf variants, each with a const "$status")',
      );
      expect(result.errors).toContain(
        'role "reviewer" frontmatter: "$status" variants must be listed under "oneOf", not "anyOf" (exactly one exit applies to an output)',
      );
    });

    test("a one-value enum is a valid variant status; reserved and empty values are not", () => {
      expect(
        check(variant(["$status: { const: approved }", "$status: { enum: [approved] }"])).errors,
      ).toEqual([]);
      const result = check(
        variant(["$status: { const: done }", '$status: { enum: [done, "$SUSPEND", ""] }']),
      );
      expect(result.errors).toEqual([
        'role "developer" frontmatter: "$status" value "$SUSPEND" is reserved; statuses may not start with "$" (any agent may answer "$status: $SUSPEND" without declaring it)',
        'role "developer" frontmatter: "$status" values must not be empty',
      ]);
    });

    test("a declared status holding an invisible character is refused, naming it", () => {
      const result = check(
        variant(["$status: { const: done }", '$status: { enum: [done, "approved\\u200B"] }']),
      );
      expect(result.errors).toEqual([
        'role "developer" frontmatter: "$status" value "approved\\u{200B}" holds an invisible or control character (U+200B at position 9)',
      ]);
    });
  });

  describe("targets and reachability", () => {
    test("an unknown target role", () => {
      const result = check(
        variant([
          'rejected: { role: developer, prompt: "Fix',
          'rejected: { role: devloper, prompt: "Fix',
        ]),
      );
      // One error: the developer it cut off is not also reported unreachable.
      expect(result.errors).toEqual([
        'edge reviewer→rejected: unknown target role "devloper" (did you mean "developer"?)',
      ]);
      expect(result.warnings).toEqual([]);
    });

    test("an unreachable role", () => {
      const result = check(
        variant(
          [
            "  reviewer:\n    frontmatter",
            "  tester:\n    frontmatter: { properties: { $status: { const: ok } }, required: [$status] }\n  reviewer:\n    frontmatter",
          ],
          [
            "  reviewer:\n    approved",
            '  tester:\n    ok: { role: $END, prompt: "ok" }\n  reviewer:\n    approved',
          ],
        ),
      );
      expect(result.errors).toEqual(['role "tester" is not reachable from $START']);
    });

    test("a graph key that is not a role (a misspelt one said once), reserved keys", () => {
      const result = check(
        variant([
          "  reviewer:\n    approved",
          '  ghost:\n    x: { role: $END, prompt: "x" }\n  $END:\n    x: { role: $END, prompt: "x" }\n  reviewr:\n    approved',
        ]),
      );
      expect(result.errors).toEqual([
        'graph[ghost]: "ghost" is not a role declared under "roles"',
        'graph key "$END" is not allowed: $END is a target only',
        'graph[reviewr]: "reviewr" is not a role declared under "roles" (did you mean "reviewer"?)',
      ]);
    });

    test("a cycle with no exit is a warning, not an error", () => {
      const result = check(
        variant([
          'approved: { role: $END, prompt: "Approved: {{{summary}}}" }',
          'approved: { role: $SUSPEND, prompt: "Approved: {{{summary}}}" }',
        ]),
      );
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.warnings).toEqual([
        'role "developer" can never reach $END: every path from it loops or suspends',
        'role "reviewer" can never reach $END: every path from it loops or suspends',
      ]);
    });

    test("a JSON Schema keyword ajv does not know is a warning with a suggestion", () => {
      const result = check(
        variant(["branch: { type: string }", "branch: { type: string, minLenght: 3 }"]),
      );
      expect(result.valid).toBe(true);
      expect(result.warnings).toEqual([
        'role "developer" frontmatter: unknown JSON Schema keyword "minLenght" at properties.branch (did you mean "minLength"?); ajv ignores it',
      ]);
    });

    test("$START as a target, and location on an edge to $END", () => {
      const result = check(
        variant(
          ['rejected: { role: developer, prompt: "Fix', 'rejected: { role: $START, prompt: "Fix'],
          [
            'approved: { role: $END, prompt: "Approved: {{{summary}}}" }',
            'approved: { role: $END, prompt: "ok", location: "/tmp" }',
          ],
        ),
      );
      expect(result.errors).toEqual(['edge reviewer→rejected: "$START" cannot be a target']);
      expect(result.warnings).toContain(
        'graph[reviewer][approved]: "location" is ignored on an edge to $END',
      );
    });
  });

  describe("template variables", () => {
    test("an undefined prompt variable", () => {
      const result = check(variant(["Review {{{branch}}}", "Review {{{brnch}}}"]));
      expect(result.errors).toEqual([
        'prompt variable "brnch" in graph[developer][done] not found in role "developer" frontmatter (did you mean "branch"?)',
      ]);
    });

    test("a dotted path is checked against nested properties", () => {
      const result = check(
        variant(["{{meta.commit.sha}}", "{{meta.commit.sha}} {{meta.author.name}} {{branch.x}}"]),
      );
      expect(result.errors).toEqual([
        'prompt variable "meta.author.name" in graph[developer][done] not found in role "developer" frontmatter',
        'prompt variable "branch.x" in graph[developer][done] not found in role "developer" frontmatter',
      ]);
    });

    test("a variable from another variant is not available; shared top-level fields are", () => {
      const result = check(
        variant(["Approved: {{{summary}}}", "Approved: {{{summary}}} {{{comments}}}"]),
      );
      expect(result.errors).toEqual([
        'prompt variable "comments" in graph[reviewer][approved] not found in role "reviewer" frontmatter (declared only for status "rejected")',
      ]);
    });

    test("sections push their value: array items, inverted sections, the current item", () => {
      const ok = check(
        variant(
          [
            "{{#comments}} {{{file}}}{{/comments}}",
            "{{#comments}} {{{file}}}{{/comments}}{{^comments}}none{{/comments}}{{#tags}} {{.}}{{/tags}}",
          ],
          [
            "summary: { type: string }",
            "summary: { type: string }\n        tags: { type: array, items: { type: string } }",
          ],
        ),
      );
      expect(ok.errors).toEqual([]);
      // An object or a list of objects printed whole, with or without declared properties.
      const printed = check(
        variant(
          [
            "summary: { type: string }",
            "summary: { type: string }\n        obj: { type: object }\n        list: { type: array, items: { type: object } }",
          ],
          [
            "{{#comments}} {{{file}}}{{/comments}}",
            "{{{obj}}} {{#list}}{{.}}{{/list}} {{{comments}}} {{#obj}}{{.}}{{/obj}}",
          ],
        ),
      );
      expect(printed.errors).toEqual([
        'graph[reviewer][rejected]: prompt reads {{{obj}}}, an object (or a list of objects), which renders as "[object Object]": read its fields, e.g. {{#obj}}{{{name}}}{{/obj}}',
        'graph[reviewer][rejected]: prompt reads {{.}} where the value is an object, which renders as "[object Object]": name a field instead, e.g. {{{summary}}}',
        'graph[reviewer][rejected]: prompt reads {{{comments}}}, an object (or a list of objects), which renders as "[object Object]": read its fields, e.g. {{#comments}}{{{name}}}{{/comments}}',
      ]);
      // The current item of a list of objects, or the output itself, renders "[object Object]".
      for (const template of ["{{#comments}} {{.}}{{/comments}}", "All: {{.}}"]) {
        expect(check(variant(["{{#comments}} {{{file}}}{{/comments}}", template])).errors).toEqual([
          'graph[reviewer][rejected]: prompt reads {{.}} where the value is an object, which renders as "[object Object]": name a field instead, e.g. {{{summary}}}',
        ]);
      }
      const bad = check(
        variant([
          "{{#comments}} {{{file}}}{{/comments}}",
          "{{#comments}} {{{line}}}{{/comments}}{{^notes}}-{{/notes}}{{#missing}}{{anything}}{{/missing}}",
        ]),
      );
      expect(bad.errors).toEqual([
        'prompt variable "line" in graph[reviewer][rejected] not found in role "reviewer" frontmatter',
        'prompt variable "notes" in graph[reviewer][rejected] not found in role "reviewer" frontmatter',
        'prompt variable "missing" in graph[reviewer][rejected] not found in role "reviewer" frontmatter',
      ]);
    });

    test("location templates are checked the same way", () => {
      const result = check(variant(['location: "{{{branch}}}"', 'location: "{{{worktree}}}"']));
      expect(result.errors).toEqual([
        'location variable "worktree" in graph[developer][done] not found in role "developer" frontmatter',
      ]);
    });

    test("upstream's Liquid filters, {{_body}} and output fields in $START say what to write", () => {
      const result = check(
        variant(
          [
            'new: { role: developer, prompt: "Implement the task." }',
            'new: { role: developer, prompt: "Work in {{ repoPath }}." }',
          ],
          ["Review {{{branch}}}", "Review {{ branch | upcase }}"],
          ["Approved: {{{summary}}}", "Approved: {{_body}}"],
        ),
      );
      expect(result.errors).toEqual([
        'prompt variable "repoPath" in graph[$START][new] not found: $START edges are rendered with no output fields: to give "repoPath" when a thread starts, declare it under "inputs:" (properties: { repoPath: { type: string } }), pass it with "thread start --input repoPath=…" and write {{{inputs.repoPath}}}',
        "graph[developer][done]: prompt uses a Liquid filter, {{branch | upcase}}, but uwf templates are mustache, which has no filters: write {{{branch}}} for the value as it is, or a section to shape a list, e.g. {{#branch}}{{.}}, {{/branch}}",
        'prompt variable "_body" in graph[reviewer][approved] not found in role "reviewer" frontmatter: uwf has no {{_body}}: a template reads only the fields of the frontmatter, so declare the text as a field (e.g. "summary: { type: string }" under its properties) and write {{{summary}}}',
      ]);
    });

    test("$START prompts have no variables; malformed templates and partials are reported", () => {
      const result = check(
        variant(
          [
            'new: { role: developer, prompt: "Implement the task." }',
            'new: { role: developer, prompt: "Do {{task}}." }',
          ],
          ["Review {{{branch}}}", "Review {{#branch}}"],
          ["Approved: {{{summary}}}", "Approved: {{> footer}}"],
        ),
      );
      expect(result.errors).toEqual([
        'prompt variable "task" in graph[$START][new] not found: $START edges are rendered with no output fields: the thread\'s task reaches the agent by itself (as "## Task"), so leave it out of the prompt',
        'graph[developer][done]: prompt is not a valid mustache template: Unclosed section "branch" at 42',
        'graph[reviewer][approved]: prompt uses the partial "{{> footer}}"; partials are not supported',
      ]);
    });
  });

  describe("file name", () => {
    test("a name that differs from the file stem", () => {
      const result = check(REVIEW_LOOP, "/w/x.yaml");
      expect(result.errors).toEqual([
        'workflow name mismatch: file "x.yaml" implies name "x" but YAML declares name "review-loop". Either rename the file to "review-loop.yaml" or change the YAML `name` field to "x"',
      ]);
    });

    test("index.yaml takes its folder's name", () => {
      expect(check(REVIEW_LOOP, "/w/review-loop/index.yaml").errors).toEqual([]);
      expect(check(REVIEW_LOOP, "/w/other/index.yml").errors).toEqual([
        'workflow name mismatch: file "other/index.yml" implies name "other" but YAML declares name "review-loop". Either rename the folder to "review-loop" or change the YAML `name` field to "other"',
      ]);
    });
  });

  test("collects every error at once", () => {
    const result = check(
      variant(
        ['rejected: { role: developer, prompt: "Fix', 'rejected: { role: devloper, prompt: "Fix'],
        ["Review {{{branch}}}", "Review {{{brnch}}}"],
        ["name: review-loop", "name: other"],
      ),
      "/w/review-loop.yaml",
    );
    expect(result.valid).toBe(false);
    expect(result.definition).toBeNull();
    expect(result.errors).toHaveLength(3);
    expect(result.errors).toEqual([
      'prompt variable "brnch" in graph[developer][done] not found in role "developer" frontmatter (did you mean "branch"?)',
      'edge reviewer→rejected: unknown target role "devloper" (did you mean "developer"?)',
      'workflow name mismatch: file "review-loop.yaml" implies name "review-loop" but YAML declares name "other". Either rename the file to "other.yaml" or change the YAML `name` field to "review-loop"',
    ]);
  });
});
