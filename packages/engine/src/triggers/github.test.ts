import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonSchema, ThreadPointer } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import { isUwfError } from "@united-workforce/util";
import { Ajv } from "ajv";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { WorkflowDefinition } from "../workflow/definition.js";
import { materialiseWorkflow } from "../workflow/materialise.js";
import { validateWorkflow } from "../workflow/validate.js";
import {
  type GithubEvent,
  type GithubEventMatch,
  loadTriggeredWorkflow,
  matchGithubEvent,
  startTriggeredThread,
  type TriggeredWorkflow,
  triggeredThreadId,
} from "./github.js";

// Both packages are JSON (and ajv-formats CommonJS): required, not imported.
const require = createRequire(import.meta.url);
/** Real payloads GitHub sent, by event name (@octokit/webhooks-examples). */
const examples = require("@octokit/webhooks-examples") as { name: string; examples: unknown[] }[];
/** GitHub's own webhook schema (@octokit/webhooks-schemas), every example checked against it. */
const webhookSchema = require("@octokit/webhooks-schemas") as {
  definitions: Record<string, unknown>;
};
const addFormats = require("ajv-formats") as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
ajv.addSchema({ $id: "webhooks", definitions: webhookSchema.definitions });

/**
 * A real example payload of `name` (with `action`) that its schema accepts: the first one, as
 * some older examples lack fields the schema has since made required.
 */
function realEvent(name: string, action?: string): GithubEvent {
  const validate = ajv.getSchema(`webhooks#/definitions/${name}$${action ?? "event"}`);
  if (validate === undefined) throw new Error(`no schema for ${name}.${action}`);
  const group = examples.find((entry) => entry.name === name);
  const payload = group?.examples.find(
    (example) => (example as { action?: string }).action === action && validate(example),
  );
  expect(payload, `a valid example of ${name}.${action}`).toBeDefined();
  return { name, payload };
}

const DEFINITION = {
  name: "triage",
  inputs: {
    type: "object",
    properties: {
      number: { type: "integer" },
      repo: { type: "string" },
      draft: { type: "boolean" },
      ref: { type: "string" },
    },
    required: ["repo"],
  },
  on: {
    github: {
      events: ["issues.opened", "issue_comment.created", "pull_request.opened", "push"],
      inputs: {
        number: "{{{event.issue.number}}}{{{event.pull_request.number}}}",
        repo: "{{{event.repository.full_name}}}",
        draft: "{{#event.pull_request}}{{{draft}}}{{/event.pull_request}}",
        ref: "{{{event.ref}}}",
      },
    },
  },
  roles: {
    triager: {
      frontmatter: {
        type: "object",
        properties: { $status: { const: "done" } },
        required: ["$status"],
      },
    },
  },
  graph: {
    $START: {
      new: { role: "triager", prompt: "Triage {{{inputs.repo}}}." },
      resume: { role: "triager", prompt: "Again." },
    },
    triager: { done: { role: "$END", prompt: "Bye." } },
  },
};

let dir: string;
let store: Store;
let workflow: TriggeredWorkflow;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "uwf-github-trigger-"));
  store = await openStore({ home: dir });
  expect(validateWorkflow(DEFINITION).errors).toEqual([]);
  const hash = await materialiseWorkflow(store.cas, DEFINITION as WorkflowDefinition);
  workflow = await loadTriggeredWorkflow(store.cas, hash);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function matched(event: GithubEvent): GithubEventMatch {
  const match = matchGithubEvent(workflow, event);
  if (!match.matched) throw new Error(`refused: ${JSON.stringify(match)}`);
  return match;
}

describe("a workflow's on.github", () => {
  test("is stored with the workflow (fourth edition), so its hash carries it", async () => {
    expect(workflow.payload.on).toEqual(DEFINITION.on);
    const node = await store.cas.get(workflow.hash);
    expect(node.type).toBe(store.cas.builtin("workflow4"));
    const without = { ...DEFINITION, on: undefined } as unknown as WorkflowDefinition;
    expect(await materialiseWorkflow(store.cas, without)).not.toBe(workflow.hash);
  });

  test("maps real payloads to typed inputs, title and prompt", () => {
    const opened = matched(realEvent("issues", "opened"));
    expect(opened.event).toBe("issues.opened");
    expect(opened.inputs).toEqual({ number: 1, repo: "Codertocat/Hello-World" });
    expect(opened.title).toBe("Spelling error in the README file");
    expect(opened.prompt).toContain("Issue #1: Spelling error in the README file");

    const comment = matched(realEvent("issue_comment", "created"));
    expect(comment.event).toBe("issue_comment.created");
    expect(comment.inputs).toMatchObject({ number: expect.any(Number), repo: expect.any(String) });

    const pull = matched(realEvent("pull_request", "opened"));
    expect(pull.inputs).toMatchObject({ number: 2, draft: false });
    expect(pull.prompt).toContain("Pull request #2");

    const push = matched(realEvent("push"));
    expect(push.event).toBe("push");
    expect(push.inputs).toMatchObject({ ref: expect.stringMatching(/^refs\//) });
    expect(push.inputs).not.toHaveProperty("number");
  });

  test("refuses an event it does not declare, naming what it declares", () => {
    expect(matchGithubEvent(workflow, realEvent("issues", "edited"))).toEqual({
      matched: false,
      event: "issues.edited",
      declared: ["issues.opened", "issue_comment.created", "pull_request.opened", "push"],
    });
  });

  test("derives one valid thread id per key: the delivery id, else the payload's hash", () => {
    const event = realEvent("issues", "opened");
    const byPayload = matched(event);
    expect(byPayload.key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(byPayload.thread).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(matched({ ...event, payload: structuredClone(event.payload) }).thread).toBe(
      byPayload.thread,
    );
    const delivered = matched({ ...event, delivery: "72d3162e-cc78-11e3-81ab-4c9367dc0958" });
    expect(delivered.key).toBe("delivery:72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(delivered.thread).not.toBe(byPayload.thread);
    expect(triggeredThreadId("0000000000000", "a")).not.toBe(
      triggeredThreadId("0000000000001", "a"),
    );
  });

  test("inputs the event cannot fill are INPUT_INVALID, naming the template", async () => {
    const event = realEvent("issues", "opened");
    const payload = structuredClone(event.payload) as { issue: { number: unknown } };
    payload.issue.number = "one";
    let error: unknown;
    try {
      matchGithubEvent(workflow, { ...event, payload });
    } catch (caught) {
      error = caught;
    }
    expect(isUwfError(error) && error.code).toBe("INPUT_INVALID");
    expect((error as Error).message).toContain(
      'on.github.inputs.number rendered "one", which: expected an integer, got "one"',
    );
  });
});

describe("startTriggeredThread", () => {
  test("starts once: the same event again finds the same thread", async () => {
    const match = matched(realEvent("issues", "opened"));
    const start = { workflow: { name: "triage", hash: workflow.hash }, match, cwd: dir };
    const first = await startTriggeredThread(store, start);
    expect(first.started).toBe(true);
    expect(first.pointer).toMatchObject({
      thread: match.thread,
      title: "Spelling error in the README file",
    });
    const again = await startTriggeredThread(store, start);
    expect(again).toEqual({ started: false, pointer: first.pointer });
  });

  test("two concurrent starts of one event make one thread and both name it", async () => {
    const match = matched(realEvent("push"));
    const start = { workflow: { name: "triage", hash: workflow.hash }, match, cwd: dir };
    const results = await Promise.all(
      Array.from({ length: 8 }, () => startTriggeredThread(store, start)),
    );
    expect(results.filter((result) => result.started)).toHaveLength(1);
    const ids = new Set(results.map((result) => (result.pointer as ThreadPointer).thread));
    expect([...ids]).toEqual([match.thread]);
    const { items } = await store.threads.list();
    expect(items).toHaveLength(1);
  });

  test("gives the thread its typed inputs", async () => {
    const match = matched(realEvent("issues", "opened"));
    const { pointer } = await startTriggeredThread(store, {
      workflow: { name: "triage", hash: workflow.hash },
      match,
      cwd: dir,
    });
    const start = await store.cas.getPayload<{ inputs: unknown }>(pointer.start, "start");
    expect(start.inputs).toEqual({ number: 1, repo: "Codertocat/Hello-World" });
    expect(
      store.cas.schemaValidator(workflow.inputs as JsonSchema).validate(start.inputs).valid,
    ).toBe(true);
  });
});
