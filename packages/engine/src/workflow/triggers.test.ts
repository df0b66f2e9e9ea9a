import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { loadAndValidate } from "./resolve.js";
import { validateWorkflow } from "./validate.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workflowFile(on: string): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "uwf-triggers-")));
  temps.push(root);
  const file = join(root, "w.yaml");
  writeFileSync(
    file,
    [
      "name: w",
      "inputs:",
      "  type: object",
      "  properties: { issue: { type: integer }, repo: { type: string } }",
      "  required: [issue]",
      on,
      "roles:",
      "  triager:",
      "    frontmatter:",
      "      type: object",
      "      properties: { $status: { const: done } }",
      "      required: [$status]",
      "graph:",
      "  $START:",
      "    new: { role: triager, prompt: 'Triage #{{{inputs.issue}}}.' }",
      "    resume: { role: triager, prompt: Go on. }",
      "  triager:",
      "    done: { role: $END, prompt: Done. }",
      "",
    ].join("\n"),
  );
  return file;
}

const VALID_ON = [
  "on:",
  "  github:",
  "    events: [issues.opened, issue_comment.created, push]",
  "    inputs:",
  '      issue: "{{{event.issue.number}}}"',
  '      repo: "{{{event.repository.full_name}}}"',
  '    key: "{{{event.repository.full_name}}}#{{{event.issue.number}}}"',
].join("\n");

describe("on.github in a workflow", () => {
  test("is loaded as written and kept in the definition", async () => {
    const loaded = await loadAndValidate(workflowFile(VALID_ON));
    expect(loaded.errors).toEqual([]);
    expect(loaded.definition?.on).toEqual({
      github: {
        events: ["issues.opened", "issue_comment.created", "push"],
        inputs: { issue: "{{{event.issue.number}}}", repo: "{{{event.repository.full_name}}}" },
        key: "{{{event.repository.full_name}}}#{{{event.issue.number}}}",
      },
    });
  });

  test("a misspelt key is placed at file:line:col with a did-you-mean", async () => {
    const loaded = await loadAndValidate(
      workflowFile(VALID_ON.replace("    events:", "    evnts:")),
    );
    expect(loaded.errors).toEqual([
      'w.yaml:8:5: on.github: unknown key "evnts" (did you mean "events"?)',
      'w.yaml:7:3: on.github: missing required field "events" (e.g. events: [issues.opened])',
    ]);
    expect(loaded.problems[0]).toMatchObject({
      code: "UNKNOWN_KEY",
      path: ["on", "github", "evnts"],
    });
    const kind = await loadAndValidate(workflowFile(VALID_ON.replace("  github:", "  gihub:")));
    expect(kind.errors).toEqual(['w.yaml:7:3: on: unknown key "gihub" (did you mean "github"?)']);
  });

  test("bad event names, unknown inputs and template variables are each reported", async () => {
    const loaded = await loadAndValidate(
      workflowFile(
        VALID_ON.replace("issue_comment.created", "Issue Comment")
          .replace("      repo:", "      rpo:")
          .replace("event.repository.full_name}}}#", "evnt.repository.full_name}}}#"),
      ),
    );
    expect(loaded.errors).toEqual([
      'w.yaml:8:29: on.github.events[1]: "Issue Comment" is not an event name: write <event> or <event>.<action> as GitHub spells them (issues, issues.opened, pull_request.synchronize)',
      'w.yaml:11:7: on.github.inputs.rpo: the workflow\'s inputs declare no "rpo" (did you mean "repo"?)',
      'w.yaml:12:5: on.github.key: template variable "evnt.repository.full_name" is not there: templates read event.<field>, event_name and delivery (did you mean "event"?)',
    ]);
  });

  test("a template that does not parse is a TEMPLATE problem where it is written", async () => {
    const file = workflowFile(
      VALID_ON.replace('"{{{event.issue.number}}}"', '"{{{event.issue.number}}"'),
    );
    const loaded = await loadAndValidate(file);
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]).toMatch(
      /^w\.yaml:10:7: on\.github\.inputs\.issue: the mustache template does not parse/,
    );
    expect(loaded.problems[0]).toMatchObject({ code: "TEMPLATE" });
  });
});

describe("on: shapes that are refused", () => {
  const HELLO = {
    name: "hello",
    roles: {
      greeter: {
        frontmatter: {
          type: "object",
          properties: { $status: { const: "done" } },
          required: ["$status"],
        },
      },
    },
    graph: {
      $START: {
        new: { role: "greeter", prompt: "Greet." },
        resume: { role: "greeter", prompt: "Again." },
      },
      greeter: { done: { role: "$END", prompt: "Bye." } },
    },
  };
  const errors = (on: unknown) => validateWorkflow({ ...HELLO, on }).errors;

  test("each with a message that says what to write", () => {
    expect(errors("github")).toEqual([
      '"on" must be a mapping of what starts the workflow (on: { github: { events: [issues.opened] } })',
    ]);
    expect(errors({ github: [] })).toEqual(["on.github must be a mapping (events, inputs, key)"]);
    expect(errors({ github: { events: [] } })).toEqual([
      "on.github.events must be a non-empty list of event names (issues.opened, issue_comment.created, push, …)",
    ]);
    expect(
      errors({ github: { events: ["push"], inputs: { issue: "{{{event.number}}}" } } }),
    ).toEqual([
      'on.github.inputs: the workflow declares no inputs (add an "inputs:" JSON Schema declaring each input the event fills)',
    ]);
    expect(errors({ github: { events: ["push"], key: 7 } })).toEqual([
      'on.github.key must be a template naming the event\'s identity ("{{{event.repository.full_name}}}#{{{event.issue.number}}}")',
    ]);
    expect(errors({ github: { events: ["push"], key: "{{{event}}}" } })).toEqual([
      'on.github.key: template variable "event" is an object and renders as [object Object]',
    ]);
    expect(
      errors({ github: { events: ["issues.opened", "push"], key: "{{{delivery}}}" } }),
    ).toEqual([]);
  });
});
