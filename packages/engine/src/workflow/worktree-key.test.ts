import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Cas, openStore } from "@united-workforce/store";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { WorkflowDefinition } from "./definition.js";
import { materialiseWorkflow } from "./materialise.js";
import { validateWorkflow } from "./validate.js";

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

let dir: string;
let cas: Cas;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "uwf-worktree-key-"));
  cas = (await openStore({ home: dir })).cas;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the workflow's `worktree` key", () => {
  test("must be a boolean", () => {
    expect(validateWorkflow({ ...HELLO, worktree: "yes" }).errors).toEqual([
      '"worktree" must be true or false (true: every thread runs in its own git worktree)',
    ]);
    expect(validateWorkflow({ ...HELLO, worktree: true }).errors).toEqual([]);
  });

  test("true is stored in the second edition; false keeps the workflow's first-edition hash", async () => {
    const plain = await materialiseWorkflow(cas, HELLO as WorkflowDefinition);
    const off = await materialiseWorkflow(cas, { ...HELLO, worktree: false } as WorkflowDefinition);
    const on = await materialiseWorkflow(cas, { ...HELLO, worktree: true } as WorkflowDefinition);
    expect(off).toBe(plain);
    expect(on).not.toBe(plain);
    expect((await cas.get(plain)).type).toBe(cas.builtin("workflow"));
    expect((await cas.get(on)).type).toBe(cas.builtin("workflow2"));
    expect((await cas.getPayload<{ worktree?: boolean }>(on, "workflow")).worktree).toBe(true);
  });
});
