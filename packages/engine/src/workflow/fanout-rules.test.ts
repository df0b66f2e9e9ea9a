import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { validateWorkflow } from "./validate.js";

/** A valid fan-out with a join; each test changes one thing. */
const FANOUT = `
name: review-all
inputs:
  type: object
  properties:
    repo: { type: string }
    dirs: { type: array, items: { type: string } }
    mode: { type: string }
roles:
  plan:
    frontmatter:
      type: object
      required: [$status, files]
      properties:
        $status: { const: ready }
        files:
          type: array
          items:
            type: object
            required: [path]
            properties: { path: { type: string }, dir: { type: string } }
        count: { type: integer }
  review:
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { enum: [approved, rejected] } }
  collect:
    join: true
    description: Collects the reviews.
    frontmatter:
      type: object
      required: [$status, results]
      properties:
        $status: { enum: [done, partial] }
        results: { type: array }
graph:
  $START:
    new: { role: plan, prompt: "Plan {{{inputs.repo}}}" }
    resume: { role: plan, prompt: "Plan again." }
  plan:
    ready:
      role: collect
      prompt: "Review {{{item.path}}} (#{{{index}}} of {{{count}}})"
      location: "{{{item.dir}}}"
      fanout: { over: "{{{files}}}", role: review, concurrency: 4, failure: continue }
  collect:
    done: { role: $END, prompt: "All {{{completed}}} reviewed." }
    partial: { role: $END, prompt: "{{{failed}}} failed:{{#results}} {{{thread}}}{{/results}}" }
`;

function errorsOf(source: string): string[] {
  return validateWorkflow(parse(source)).errors;
}

function warningsOf(source: string): string[] {
  return validateWorkflow(parse(source)).warnings;
}

function variant(...replacements: [string, string][]): string {
  let out = FANOUT;
  for (const [from, to] of replacements) {
    expect(out).toContain(from);
    out = out.replace(from, to);
  }
  return out;
}

const EDGE = 'fanout: { over: "{{{files}}}", role: review, concurrency: 4, failure: continue }';
const withFanout = (fanout: string) => variant([EDGE, `fanout: ${fanout}`]);

const FORMAT_DOC = fileURLToPath(new URL("../../../../docs/workflow-yaml.md", import.meta.url));

describe("fan-out validation", () => {
  test("the example in docs/workflow-yaml.md is valid", () => {
    const doc = readFileSync(FORMAT_DOC, "utf8");
    const example = /## Fan-out and join\n[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const result = validateWorkflow(parse(example as string));
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  test("the base fan-out is valid, the child role needing no graph entry", () => {
    const result = validateWorkflow(parse(FANOUT));
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  describe("the fanout mapping", () => {
    test("must be a mapping", () => {
      expect(errorsOf(withFanout("review"))).toEqual([
        'graph[plan][ready].fanout must be a mapping: { over: "{{{items}}}", role: <role> | workflow: <workflow>, concurrency, failure }',
        // No fanout names it as a child then, so it needs a graph entry like any role.
        'role "review" has no graph entry: add graph.review with one edge per status',
      ]);
    });

    test("needs exactly one of role and workflow", () => {
      expect(errorsOf(withFanout("{ over: files }"))).toEqual([
        'graph[plan][ready].fanout must name what each child runs: "role: <a role of this workflow>" or "workflow: <name, path or hash>"',
        // No fanout names it as a child then, so it needs a graph entry like any role.
        'role "review" has no graph entry: add graph.review with one edge per status',
      ]);
      expect(errorsOf(withFanout("{ over: files, role: review, workflow: other }"))).toEqual([
        'graph[plan][ready].fanout has both "role" and "workflow": a child runs one role of this workflow or a whole workflow, so keep one',
      ]);
    });

    test("unknown keys, wrong types and bad values are each named", () => {
      expect(
        errorsOf(
          withFanout("{ over: 3, role: [review], concurrency: 0, failure: most, parallel: true }"),
        ),
      ).toEqual([
        'graph[plan][ready].fanout: unknown key "parallel" (expected: over, role, workflow, concurrency, failure, worktree)',
        "graph[plan][ready].fanout.role must be a string",
        'graph[plan][ready].fanout.over must be a string naming a list in the output, e.g. "{{{files}}}" or "plan.files"',
        "graph[plan][ready].fanout.concurrency must be a whole number, at least 1 (how many children run at once; default 4)",
        'graph[plan][ready].fanout.failure is "most": it must be one of all, any, continue (all: every child must complete; any: at least one; continue: the join runs whatever failed)',
        // No fanout names it as a child then, so it needs a graph entry like any role.
        'role "review" has no graph entry: add graph.review with one edge per status',
      ]);
      expect(errorsOf(withFanout('{ over: files, workflow: "  " }'))).toEqual([
        "graph[plan][ready].fanout.workflow must not be empty",
        'role "review" has no graph entry: add graph.review with one edge per status',
      ]);
    });

    test("over names one field, written as a template or bare", () => {
      for (const over of ['"{{{files}}}"', '"{{files}}"', "files", '"{{{ files }}}"']) {
        expect(errorsOf(withFanout(`{ over: ${over}, role: review, failure: any }`))).toEqual([]);
      }
      for (const over of ['"{{#files}}"', '"files and more"', '"{{{files}}} x"', '"{{> files}}"']) {
        expect(errorsOf(withFanout(`{ over: ${over}, role: review }`))).toEqual([
          `graph[plan][ready].fanout.over is ${JSON.stringify(JSON.parse(over.startsWith('"') ? over : `"${over}"`))}: it must name one list field, as "{{{files}}}", "{{files}}" or "files" (dotted paths such as "plan.files" and "inputs.files" are fine)`,
        ]);
      }
    });
  });

  describe("over", () => {
    test("must be a field the source declares for that status", () => {
      expect(errorsOf(withFanout('{ over: "{{{paths}}}", role: review, failure: any }'))).toEqual([
        'graph[plan][ready]: fanout.over "{{{paths}}}" names "paths", which role "plan" frontmatter does not declare for status "ready" (declare it as a list: { type: array, items: … })',
        // The item's fields are unknown once the list is: templates read it as open.
      ]);
    });

    test("must be declared as a list", () => {
      expect(errorsOf(withFanout("{ over: count, role: review, failure: any }"))).toEqual([
        'graph[plan][ready]: fanout.over "count" must name a list, but role "plan" frontmatter declares "count" as "integer" (declare it with type: array)',
        // Not a list, so nothing is known of its items: their fields are not reported too.
      ]);
    });

    test("may name a list in the inputs", () => {
      const over = variant(
        [EDGE, "fanout: { over: inputs.dirs, role: review, failure: any }"],
        ["Review {{{item.path}}}", "Review {{{item}}}"],
        ['location: "{{{item.dir}}}"', 'location: "{{{item}}}"'],
      );
      expect(errorsOf(over)).toEqual([]);
      expect(errorsOf(over.replace("over: inputs.dirs", "over: inputs.mode")).slice(0, 1)).toEqual([
        'graph[plan][ready]: fanout.over "inputs.mode" must name a list, but the workflow\'s inputs declares "inputs.mode" as "string" (declare it with type: array)',
      ]);
      expect(errorsOf(over.replace("over: inputs.dirs", "over: inputs.nope"))).toEqual([
        'graph[plan][ready]: fanout.over "inputs.nope" names "inputs.nope", which the workflow\'s inputs do not declare',
      ]);
    });

    test("item fields are checked against the list's items; without over there is no item", () => {
      expect(errorsOf(variant(["Review {{{item.path}}}", "Review {{{item.name}}}"]))).toEqual([
        'prompt variable "item.name" in graph[plan][ready] not found in the items of fanout.over "{{{files}}}" (declare the items\' fields under "items.properties")',
      ]);
      expect(errorsOf(withFanout("{ role: review, failure: any }"))).toEqual([
        'prompt variable "item.path" in graph[plan][ready] not found: a fan-out without "over" runs one child, whose item is null',
        'location variable "item.dir" in graph[plan][ready] not found: a fan-out without "over" runs one child, whose item is null',
      ]);
    });

    test("an output field named item is hidden in a fan-out's templates", () => {
      expect(
        warningsOf(
          variant([
            "count: { type: integer }",
            "count: { type: integer }\n        item: { type: string }",
          ]),
        ),
      ).toEqual([
        'graph[plan][ready]: role "plan" output field "item" is hidden in this fan-out\'s prompt and location, where {{{item}}} is the child\'s item',
      ]);
    });
  });

  describe("$START", () => {
    const fromStart = (fanout: string) =>
      variant(
        [
          'new: { role: plan, prompt: "Plan {{{inputs.repo}}}" }',
          `new: { role: collect, prompt: "Review {{{item}}}", fanout: ${fanout} }`,
        ],
        [EDGE, "fanout: { over: files, role: review, failure: continue }"],
      );

    test("may fan out over an input list, or without over", () => {
      expect(errorsOf(fromStart("{ over: inputs.dirs, role: review, failure: any }"))).toEqual([]);
      expect(
        errorsOf(fromStart("{ role: review, failure: any }").replace("Review {{{item}}}", "Go")),
      ).toEqual([]);
    });

    test("may not fan out over an output: there is none yet", () => {
      expect(errorsOf(fromStart("{ over: files, role: review, failure: any }"))).toEqual([
        'graph[$START][new]: fanout.over "files": a $START edge may fan out only over the thread\'s inputs ("over: inputs.<list>") or without "over" (one child); the thread has no output yet',
      ]);
    });
  });

  describe("the child role", () => {
    test("must be a role of the workflow", () => {
      expect(errorsOf(withFanout("{ over: files, role: reviewer, failure: any }"))).toEqual([
        'role "review" has no graph entry: add graph.review with one edge per status',
        'graph[plan][ready]: fanout.role "reviewer" is not a role declared under "roles" (did you mean "review"?)',
      ]);
    });

    test("may not be a join", () => {
      expect(errorsOf(withFanout("{ over: files, role: collect, failure: any }"))).toContain(
        'graph[plan][ready]: fanout.role "collect" is a join role; a child runs an ordinary role (an agent, human or script role)',
      );
    });

    test("may be a human or a script role", () => {
      const human = variant([
        "  review:\n    frontmatter:",
        "  review:\n    agent: human\n    frontmatter:",
      ]);
      expect(errorsOf(human)).toEqual([]);
      const script = variant([
        "  review:\n    frontmatter:",
        "  review:\n    run: [npm, test]\n    exitStatus: { 0: approved, default: rejected }\n    frontmatter:",
      ]);
      expect(errorsOf(script)).toEqual([]);
    });
  });

  describe("the join", () => {
    test("a fan-out must target a join role", () => {
      expect(
        errorsOf(
          variant(["    join: true\n    description: Collects", "    description: Collects"]),
        ),
      ).toEqual([
        // Without join, the fields uwf writes into a join are not there to read either.
        'prompt variable "completed" in graph[collect][done] not found in role "collect" frontmatter',
        'prompt variable "failed" in graph[collect][partial] not found in role "collect" frontmatter',
        'graph[plan][ready]: a fan-out edge\'s "role" is its join, the role that collects the children\'s results, but role "collect" has no "join: true"',
      ]);
      expect(
        errorsOf(
          variant(['role: collect\n      prompt: "Review', 'role: $END\n      prompt: "Review']),
        ),
      ).toContain(
        'graph[plan][ready]: a fan-out edge\'s "role" is its join, the role that collects the children\'s results; $END cannot be one: target a role with "join: true"',
      );
    });

    test("only fan-out edges may reach a join", () => {
      expect(
        errorsOf(
          variant([
            'resume: { role: plan, prompt: "Plan again." }',
            'resume: { role: collect, prompt: "Collect." }',
          ]),
        ),
      ).toEqual([
        'graph[$START][resume]: role "collect" is a join ("join: true"), which only a fan-out edge may reach: uwf writes its step from the children\'s results (add "fanout:" to this edge, or target another role)',
      ]);
    });

    test("a join no fan-out reaches is an error", () => {
      const extra = variant(
        [
          "  collect:\n    join: true",
          "  tally:\n    join: true\n    frontmatter: { type: object, required: [$status], properties: { $status: { const: done } } }\n  collect:\n    join: true",
        ],
        [
          "  collect:\n    done:",
          "  tally:\n    done: { role: $END, prompt: Done. }\n  collect:\n    done:",
        ],
      );
      expect(errorsOf(extra)).toEqual([
        'role "tally" has "join: true" but no fan-out edge leads to it: a join collects the results of a fan-out (give an edge to it a "fanout:", or remove "join")',
        'role "tally" is not reachable from $START',
      ]);
    });

    test("join must be true and a join runs nothing", () => {
      expect(
        errorsOf(variant(["    join: true\n    description", "    join: yes\n    description"])),
      ).toContain(
        'role "collect": "join" must be true (the role is then the join of a fan-out, written by uwf from the children\'s results), or left out',
      );
      expect(
        errorsOf(
          variant([
            "    join: true\n    description",
            "    join: true\n    agent: human\n    timeoutSeconds: 5\n    description",
          ]),
        ),
      ).toContain(
        'role "collect": a join role ("join: true") runs no agent and no command: uwf writes its step from the children\'s results; remove "agent", "timeoutSeconds"',
      );
    });

    test("its statuses are done, and partial where children may fail", () => {
      expect(
        errorsOf(
          variant(
            ["$status: { enum: [done, partial] }", "$status: { enum: [ok, partial] }"],
            ['    done: { role: $END, prompt: "All', '    ok: { role: $END, prompt: "All'],
          ),
        ),
      ).toEqual([
        'role "collect" is a join: its "$status" may only be done (every child completed) or partial (some failed); remove: ok',
        'role "collect" is a join: its "$status" must declare "done" (every child completed)',
      ]);
      expect(
        errorsOf(
          variant(
            ["$status: { enum: [done, partial] }", "$status: { const: done }"],
            [
              '    partial: { role: $END, prompt: "{{{failed}}} failed:{{#results}} {{{thread}}}{{/results}}" }\n',
              "",
            ],
          ),
        ),
      ).toEqual([
        'role "collect" is the join of graph[plan][ready] (failure: continue), where children may fail and the join ends "partial": declare "partial" in its "$status" and add graph.collect.partial',
      ]);
    });

    test("partial under failure all is a warning: it never happens", () => {
      const all = withFanout('{ over: "{{{files}}}", role: review }');
      expect(errorsOf(all)).toEqual([]);
      expect(warningsOf(all)).toEqual([
        'role "collect" declares "partial", which never happens here: every fan-out into it has failure "all", so the join runs only when every child completed; remove "partial" from its "$status" (or set failure any|continue on a fan-out into it)',
      ]);
    });

    test("its frontmatter may require and declare only what uwf writes", () => {
      expect(
        errorsOf(
          variant(["required: [$status, results]", "required: [$status, results, summary]"]),
        ),
      ).toContain(
        'role "collect" is a join: its output holds only $status, results, completed, failed, but its frontmatter requires "summary" for status "done", which uwf never writes',
      );
      expect(
        errorsOf(
          variant([
            "results: { type: array }",
            "results: { type: array }\n      additionalProperties: false",
          ]),
        ),
      ).toEqual([
        'role "collect" is a join whose frontmatter sets additionalProperties: false without declaring "completed", "failed", which uwf writes into its output: declare them under "properties"',
      ]);
      expect(errorsOf(variant(["results: { type: array }", "results: { type: string }"]))).toEqual([
        'prompt variable "thread" in graph[collect][partial] not found in role "collect" frontmatter',
        'role "collect" is a join: uwf writes "results" as a list (type: array), but its frontmatter declares it as "string"',
      ]);
    });
  });

  test("unknown-key messages list join and fanout", () => {
    expect(errorsOf(variant(["    join: true\n", "    join: true\n    collector: 1\n"]))).toEqual([
      'role "collect": unknown key "collector" (expected: description, goal, capabilities, procedure, output, frontmatter, agent, run, shell, exitStatus, timeoutSeconds, maxVisits, join)',
    ]);
  });
});
