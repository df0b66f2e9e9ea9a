import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { WorkflowPayload } from "@united-workforce/protocol";
import { type Cas, openStore, type RegistryStore } from "@united-workforce/store";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { CHILD_END_PROMPT, CHILD_RESUME_PROMPT, CHILD_START_PROMPT } from "./fanout.js";
import { materialiseWorkflow } from "./materialise.js";
import { loadAndValidate, resolveWorkflow } from "./resolve.js";

/** A fan-out's child workflow is resolved, validated and pinned by hash when the parent is stored. */

const CHILD = (name: string, fanout = "") => `name: ${name}
roles:
  work:
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
${
  fanout === ""
    ? ""
    : `  gather:
    join: true
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
`
}graph:
  $START:
    new: { role: work, prompt: "Work." }
    resume: { role: work, prompt: "Again." }
  work:
    done: ${fanout === "" ? "{ role: $END, prompt: Done. }" : `{ role: gather, prompt: Sub., fanout: { workflow: ${fanout} } }`}
${fanout === "" ? "" : "  gather:\n    done: { role: $END, prompt: Done. }\n"}`;

const PARENT = (fanout: string) => `name: parent
roles:
  plan:
    frontmatter:
      type: object
      required: [$status, files]
      properties:
        $status: { const: ready }
        files: { type: array, items: { type: object, properties: { path: { type: string } } } }
${
  fanout.includes("role:")
    ? `  review:
    description: Reviews one file.
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { enum: [approved, rejected] } }
`
    : ""
}  collect:
    join: true
    frontmatter:
      type: object
      required: [$status, results]
      properties:
        $status: { enum: [done, partial] }
        results: { type: array }
graph:
  $START:
    new: { role: plan, prompt: "Plan." }
    resume: { role: plan, prompt: "Plan again." }
  plan:
    ready:
      role: collect
      prompt: "Review {{{item.path}}}"
      fanout: ${fanout}
  collect:
    done: { role: $END, prompt: "All {{{completed}}} done." }
    partial: { role: $END, prompt: "{{{failed}}} failed." }
`;

let base: string;
let cas: Cas;
let registry: RegistryStore;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "uwf-fanout-load-")));
  const store = await openStore({ home: join(base, "home") });
  cas = store.cas;
  registry = store.registry;
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function write(path: string, content: string): string {
  const full = join(base, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

const store = async () => ({ cas, registry });

async function storedParent(path: string): Promise<{ hash: string; payload: WorkflowPayload }> {
  const loaded = await loadAndValidate(path, { store });
  expect(loaded.errors).toEqual([]);
  const hash = await materialiseWorkflow(cas, loaded.definition!);
  return { hash, payload: await cas.getPayload<WorkflowPayload>(hash, "workflow") };
}

describe("a role: fan-out", () => {
  test("is stored as a one-role child workflow, pinned by hash", async () => {
    const path = write(
      "parent.yaml",
      PARENT('{ over: "{{{files}}}", role: review, concurrency: 3, failure: any }'),
    );
    const { hash, payload } = await storedParent(path);
    expect((await cas.get(hash)).type).toBe(cas.builtin("workflow3"));
    const fanout = payload.graph.plan?.ready?.fanout;
    expect(fanout).toEqual({
      workflow: expect.any(String),
      over: "{{{files}}}",
      concurrency: 3,
      failure: "any",
    });
    expect(payload.roles.collect?.join).toBe(true);
    // A role used only as a fan-out's child needs no graph entry in the parent.
    expect(payload.graph.review).toBeUndefined();

    const child = await cas.getPayload<WorkflowPayload>(fanout!.workflow, "workflow");
    expect(child).toEqual({
      name: "parent/review",
      roles: { review: payload.roles.review },
      graph: {
        $START: {
          new: { role: "review", prompt: CHILD_START_PROMPT },
          resume: { role: "review", prompt: CHILD_RESUME_PROMPT },
        },
        review: {
          approved: { role: "$END", prompt: CHILD_END_PROMPT },
          rejected: { role: "$END", prompt: CHILD_END_PROMPT },
        },
      },
    });
  });

  test("the same definition gives the same hashes", async () => {
    const path = write("parent.yaml", PARENT('{ over: "files", role: review }'));
    const first = await storedParent(path);
    const again = await storedParent(path);
    expect(again.hash).toBe(first.hash);
  });
});

describe("a workflow: fan-out", () => {
  test("a path relative to the parent file is validated, stored and pinned", async () => {
    write("flows/child.yaml", CHILD("child"));
    const path = write("flows/parent.yaml", PARENT("{ over: files, workflow: ./child.yaml }"));
    const { payload } = await storedParent(path);
    const pinned = payload.graph.plan?.ready?.fanout?.workflow as string;
    const child = await cas.getPayload<WorkflowPayload>(pinned, "workflow");
    expect(child.name).toBe("child");
    // The child is pinned: changing its file later does not change the stored parent.
    write("flows/child.yaml", CHILD("child").replace("Work.", "Work harder."));
    const again = await storedParent(path);
    expect(again.payload.graph.plan?.ready?.fanout?.workflow).not.toBe(pinned);
    expect(await cas.has(pinned)).toBe(true);
  });

  test("a registered name and a hash resolve to the registered workflow", async () => {
    const childPath = write("elsewhere/child.yaml", CHILD("child"));
    const stored = await resolveWorkflow(childPath, { cwd: base, cas, registry });
    await registry.add("child", stored.hash);
    const byName = await storedParent(
      write("a/parent.yaml", PARENT("{ over: files, workflow: child }")),
    );
    expect(byName.payload.graph.plan?.ready?.fanout?.workflow).toBe(stored.hash);
    const byHash = await storedParent(
      write("b/parent.yaml", PARENT(`{ over: files, workflow: ${stored.hash.toLowerCase()} }`)),
    );
    expect(byHash.payload.graph.plan?.ready?.fanout?.workflow).toBe(stored.hash);
  });

  test("a .workflows/ name next to the parent wins over the registry, like an argument", async () => {
    write("repo/.git/HEAD", "");
    write("repo/.workflows/child.yaml", CHILD("child"));
    const path = write("repo/flows/parent.yaml", PARENT("{ over: files, workflow: child }"));
    const { payload } = await storedParent(path);
    const child = await cas.getPayload<WorkflowPayload>(
      payload.graph.plan?.ready?.fanout?.workflow as string,
      "workflow",
    );
    expect(child.graph.$START?.new?.prompt).toBe("Work.");
  });

  test("nested fan-outs are resolved and stored in turn", async () => {
    write("leaf.yaml", CHILD("leaf"));
    write("middle.yaml", CHILD("middle", "./leaf.yaml"));
    const { payload } = await storedParent(
      write("parent.yaml", PARENT("{ over: files, workflow: ./middle.yaml }")),
    );
    const middle = await cas.getPayload<WorkflowPayload>(
      payload.graph.plan?.ready?.fanout?.workflow as string,
      "workflow",
    );
    const leaf = await cas.getPayload<WorkflowPayload>(
      middle.graph.work?.done?.fanout?.workflow as string,
      "workflow",
    );
    expect(leaf.name).toBe("leaf");
  });

  test("a missing child is an error naming the edge and the reference", async () => {
    const loaded = await loadAndValidate(
      write("parent.yaml", PARENT("{ over: files, workflow: ./nope.yaml }")),
      { store },
    );
    expect(loaded.valid).toBe(false);
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]).toMatch(
      /^parent\.yaml:26:30: graph\[plan\]\[ready\]: fanout\.workflow "\.\/nope\.yaml" was not found/,
    );
  });

  test("an invalid child makes the parent invalid, with the child's problems", async () => {
    write("child.yaml", CHILD("child").replace("const: done", "const: 7"));
    const loaded = await loadAndValidate(
      write("parent.yaml", PARENT("{ over: files, workflow: ./child.yaml }")),
      { store },
    );
    expect(loaded.valid).toBe(false);
    expect(loaded.errors[0]).toMatch(
      /^parent\.yaml:26:30: graph\[plan\]\[ready\]: fanout\.workflow "\.\/child\.yaml" is invalid: child\.yaml:4:5: /,
    );
  });

  test("a workflow fanning out to itself is a cycle", async () => {
    write("loop.yaml", CHILD("loop", "./loop.yaml"));
    const loaded = await loadAndValidate(join(base, "loop.yaml"), { store });
    expect(loaded.errors).toEqual([
      'loop.yaml:19:51: graph[work][done]: fanout.workflow "./loop.yaml": fan-out cycle: loop.yaml → loop.yaml (a workflow cannot fan out to itself, directly or through others)',
    ]);
  });

  test("a cycle through another workflow names every file on it", async () => {
    write("a.yaml", CHILD("a", "./b.yaml"));
    write("b.yaml", CHILD("b", "./a.yaml"));
    const loaded = await loadAndValidate(join(base, "a.yaml"), { store });
    expect(loaded.valid).toBe(false);
    expect(loaded.errors).toHaveLength(1);
    expect(loaded.errors[0]).toContain('graph[work][done]: fanout.workflow "./b.yaml" is invalid');
    expect(loaded.errors[0]).toContain("fan-out cycle: a.yaml → b.yaml → a.yaml");
  });

  describe("a child workflow with inputs takes each item as its inputs", () => {
    const withInputs = (required: string) =>
      CHILD("child").replace(
        "roles:",
        `inputs:\n  type: object\n  required: [${required}]\n  properties: { path: { type: string }, size: { type: integer } }\nroles:`,
      );

    test("items that are objects declaring the required inputs are fine", async () => {
      write("child.yaml", withInputs("path"));
      const path = write("parent.yaml", PARENT("{ over: files, workflow: ./child.yaml }"));
      expect((await loadAndValidate(path, { store })).errors).toEqual([]);
    });

    test("items that lack a required input are an error", async () => {
      write("child.yaml", withInputs("path, size"));
      const path = write("parent.yaml", PARENT("{ over: files, workflow: ./child.yaml }"));
      expect((await loadAndValidate(path, { store })).errors).toEqual([
        'parent.yaml:26:30: graph[plan][ready]: fanout.workflow "./child.yaml": workflow "child" requires the inputs "size", which the items of fanout.over "files" do not declare',
      ]);
    });

    test("items that are not objects are an error", async () => {
      write("child.yaml", withInputs("path"));
      const parent = PARENT("{ over: files, workflow: ./child.yaml }")
        .replace(
          "{ type: array, items: { type: object, properties: { path: { type: string } } } }",
          "{ type: array, items: { type: string } }",
        )
        .replace("Review {{{item.path}}}", "Review {{{item}}}");
      const path = write("parent.yaml", parent);
      expect((await loadAndValidate(path, { store })).errors).toEqual([
        'parent.yaml:26:30: graph[plan][ready]: fanout.workflow "./child.yaml" declares inputs (workflow "child"), which each child takes from its item, but the items of fanout.over "files" are declared as "string": make them objects of the child\'s inputs',
      ]);
    });

    test("without over the one child has no item to take them from", async () => {
      write("child.yaml", withInputs("path"));
      const parent = PARENT("{ workflow: ./child.yaml }").replace(
        "Review {{{item.path}}}",
        "Review it",
      );
      const path = write("parent.yaml", parent);
      expect((await loadAndValidate(path, { store })).errors).toEqual([
        'parent.yaml:26:17: graph[plan][ready]: fanout.workflow "./child.yaml" declares inputs (workflow "child"), which each child takes from its item, but without "over" the one child\'s item is null: fan out over a list of input objects',
      ]);
    });
  });

  test("thread start's deferred resolve computes the hash add stores, writing nothing", async () => {
    write("child.yaml", CHILD("child"));
    const path = write("parent.yaml", PARENT("{ over: files, workflow: ./child.yaml }"));
    const deferred = await resolveWorkflow(path, { cwd: base, cas, registry, deferWrite: true });
    expect(await cas.has(deferred.hash)).toBe(false);
    const pinned = deferred.payload.graph.plan?.ready?.fanout?.workflow as string;
    expect(await cas.has(pinned)).toBe(false);
    const hash = await materialiseWorkflow(cas, deferred.unstored!);
    expect(hash).toBe(deferred.hash);
    expect(await cas.has(pinned)).toBe(true);
  });
});
