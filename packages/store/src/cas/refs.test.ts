import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyUsage, type StartPayload, type StepPayload } from "@united-workforce/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cas } from "./cas.js";
import { collectRefs } from "./refs.js";

let home: string;
let cas: Cas;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-refs-"));
  cas = Cas.open(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** A workflow, its start and two steps, as `thread exec` would store them. */
function buildChain(store: Cas) {
  const role = store.putSchema({
    type: "object",
    required: ["$status"],
    properties: { $status: { type: "string" }, plan: { type: "string" } },
  });
  const workflow = store.put(store.builtin("workflow"), {
    name: "plan",
    roles: { planner: { frontmatter: role } },
    graph: { $START: { new: { role: "planner", prompt: "{{{prompt}}}" } } },
  });
  const start = store.put(store.builtin("start"), {
    workflow,
    prompt: "make a plan",
    cwd: "/tmp",
    createdAtMs: 1,
  } satisfies StartPayload);
  const makeStep = (prev: string | null, n: number) => {
    const parts = {
      output: store.put(role, { $status: "done", plan: `plan ${n}` }),
      body: store.putText(`body ${n}`),
      detail: store.put(store.builtin("detail"), { adapter: "uwf-mock", turns: [] }),
      assembledPrompt: store.putText(`prompt ${n}`),
    };
    const payload: StepPayload = {
      start,
      prev,
      role: "planner",
      ...parts,
      agent: "uwf-mock",
      edgePrompt: "go",
      cwd: "/tmp",
      startedAtMs: n,
      completedAtMs: n + 1,
      usage: emptyUsage(),
      attempts: 1,
    };
    return { hash: store.put(store.builtin("step"), payload), ...parts };
  };
  const step1 = makeStep(null, 1);
  const step2 = makeStep(step1.hash, 2);
  return { role, workflow, start, step1, step2 };
}

describe("refs", () => {
  it("lists a step's schema node first, then its cas-ref fields, skipping a null prev", () => {
    const { start, step1 } = buildChain(cas);
    const refs = cas.refs(step1.hash);
    expect(refs[0]).toBe(cas.builtin("step"));
    expect(refs.slice(1).sort()).toEqual(
      [start, step1.output, step1.body, step1.detail, step1.assembledPrompt].sort(),
    );
  });

  it("follows prev, the workflow and the role schema", () => {
    const { workflow, start, role, step1, step2 } = buildChain(cas);
    expect(cas.refs(step2.hash)).toContain(step1.hash);
    expect(cas.refs(start)).toEqual([cas.builtin("start"), workflow]);
    expect(cas.refs(workflow)).toEqual([cas.builtin("workflow"), role]);
    expect(cas.refs(role)).toEqual([]);
  });

  it("follows items, additionalProperties, allOf and the matching branch of a union", () => {
    const h = (n: number) => `${n}`.padStart(13, "0");
    const ref = { type: "string", format: "cas-ref" };
    const schema = {
      type: "object",
      properties: {
        list: { type: "array", items: ref },
        map: { type: "object", additionalProperties: { $ref: "#/definitions/ref" } },
        both: { allOf: [ref] },
        variant: {
          oneOf: [
            { type: "object", properties: { kind: { const: "file" }, id: ref } },
            { type: "object", properties: { kind: { const: "name" }, id: { type: "string" } } },
          ],
        },
      },
      definitions: { ref },
    };
    const payload = {
      list: [h(1), h(2)],
      map: { a: h(3), b: null },
      both: h(4),
      variant: { kind: "name", id: h(5) },
      other: h(6),
    };
    expect(collectRefs(schema, payload)).toEqual([h(1), h(2), h(3), h(4)]);
    expect(collectRefs(schema, { variant: { kind: "file", id: h(7) } })).toEqual([h(7)]);
  });
});

describe("walk", () => {
  it("visits a chain breadth-first, each node once, with its depth", () => {
    const { workflow, start, role, step1, step2 } = buildChain(cas);
    const visited = [...cas.walk(step2.hash)];
    const depthOf = new Map(visited.map((item) => [item.hash, item.depth]));
    expect(visited.length).toBe(depthOf.size);
    expect(visited[0]).toMatchObject({ hash: step2.hash, depth: 0 });
    expect(depthOf.get(step1.hash)).toBe(1);
    expect(depthOf.get(start)).toBe(1);
    expect(depthOf.get(workflow)).toBe(2);
    expect(depthOf.get(role)).toBe(2);
    expect(depthOf.get(cas.builtin("text"))).toBe(2);
    const depths = visited.map((item) => item.depth);
    expect(depths).toEqual([...depths].sort((a, b) => a - b));
  });

  it("stops at maxDepth", () => {
    const { step2 } = buildChain(cas);
    expect([...cas.walk(step2.hash, { maxDepth: 0 })].map((item) => item.hash)).toEqual([
      step2.hash,
    ]);
    expect([...cas.walk(step2.hash, { maxDepth: 1 })].every((item) => item.depth <= 1)).toBe(true);
  });
});
