import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StartPayload, StepPayload, WorkflowPayload } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loop } from "../__fixtures__/workflows.js";
import { lineDiff, planRebase, writeRebase } from "./rebase.js";

let home: string;
let store: Store;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-rebase-"));
  store = await openHomeStore(home);
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

/** A loop thread run to the end: writer, reviewer (changes), writer, reviewer (approved). */
async function loopThread(): Promise<{ thread: string; steps: string[] }> {
  const { thread } = await seedThread(store, { workflow: loop, prompt: "p", cwd: home });
  const steps = [
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "a" } }),
    await appendStep(store, thread, {
      role: "reviewer",
      output: { $status: "changes", notes: "shorter" },
    }),
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "b" } }),
    await appendStep(store, thread, { role: "reviewer", output: { $status: "approved" } }),
  ];
  return { thread, steps };
}

/** Another version of loop, stored as `workflow add` would. */
async function version(change: (w: typeof loop) => void) {
  const copy = structuredClone(loop);
  change(copy);
  const seeded = await seedThread(store, { workflow: copy, prompt: "other", cwd: home });
  const payload = await store.cas.getPayload<WorkflowPayload>(seeded.workflowHash, "workflow");
  return { hash: seeded.workflowHash, payload };
}

async function pinned(thread: string) {
  const pointer = await store.threads.get(thread);
  const payload = await store.cas.getPayload<WorkflowPayload>(pointer.workflowHash, "workflow");
  return { hash: pointer.workflowHash, payload };
}

describe("planRebase", () => {
  it("reuses every step of the workflow the thread is pinned to", async () => {
    const { thread, steps } = await loopThread();
    const plan = await planRebase(store, thread, await pinned(thread));
    expect(plan).toMatchObject({ sameWorkflow: true, steps: 4, firstChange: null });
    expect(plan.reused.map((s) => s.hash)).toEqual(steps);
  });

  it("reuses every step when only something no step used changed", async () => {
    const { thread } = await loopThread();
    const other = await version((w) => {
      w.description = "now described";
    });
    const plan = await planRebase(store, thread, other);
    expect(plan).toMatchObject({ sameWorkflow: false, firstChange: null });
    expect(plan.reused).toHaveLength(4);
  });

  it("parts at the first step of a role whose definition changed, naming the fields", async () => {
    const { thread, steps } = await loopThread();
    const other = await version((w) => {
      w.roles.reviewer!.procedure = "Be strict.";
    });
    const plan = await planRebase(store, thread, other);
    expect(plan.reused.map((s) => s.step)).toEqual([1]);
    expect(plan.firstChange).toMatchObject({
      step: 2,
      hash: steps[1],
      role: "reviewer",
      from: "writer",
      roleChange: { role: "reviewer", fields: ["procedure"] },
      routeChange: null,
    });
  });

  it("names a changed output schema as the role's frontmatter", async () => {
    const { thread } = await loopThread();
    const other = await version((w) => {
      w.roles.writer!.frontmatter = {
        ...w.roles.writer!.frontmatter,
        properties: { $status: { const: "written" }, text: { type: "string", minLength: 1 } },
      };
    });
    const plan = await planRebase(store, thread, other);
    expect(plan.reused).toEqual([]);
    expect(plan.firstChange).toMatchObject({
      step: 1,
      from: "$START",
      roleChange: { fields: ["frontmatter"] },
    });
  });

  it("parts at the step an edited edge prompt leads into, with a diff of the prompt", async () => {
    const { thread, steps } = await loopThread();
    const other = await version((w) => {
      w.graph.reviewer!.changes = { role: "writer", prompt: "Revise it: {{{notes}}}" };
    });
    const plan = await planRebase(store, thread, other);
    expect(plan.reused.map((s) => s.hash)).toEqual(steps.slice(0, 2));
    expect(plan.firstChange).toEqual({
      step: 3,
      hash: steps[2],
      role: "writer",
      from: "reviewer",
      roleChange: null,
      routeChange: {
        recorded: {
          target: "writer",
          prompt: "Revise: shorter",
          location: null,
          fanout: null,
          error: null,
        },
        rebased: {
          target: "writer",
          prompt: "Revise it: shorter",
          location: null,
          fanout: null,
          error: null,
        },
        diff: ["- Revise: shorter", "+ Revise it: shorter"],
      },
    });
  });

  it("parts past the head when only the route from the head changed", async () => {
    const { thread, steps } = await loopThread();
    const other = await version((w) => {
      w.graph.reviewer!.approved = { role: "$END", prompt: "Shipped." };
    });
    const plan = await planRebase(store, thread, other);
    expect(plan.reused.map((s) => s.hash)).toEqual(steps);
    expect(plan.firstChange).toMatchObject({ step: 5, hash: null, role: null, from: "reviewer" });
  });

  it("compares a completed thread's restart through $START.resume", async () => {
    const { thread } = await loopThread();
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "c" } });
    const other = await version((w) => {
      w.graph.$START!.resume = { role: "writer", prompt: "Once more." };
    });
    const plan = await planRebase(store, thread, other);
    expect(plan.reused).toHaveLength(4);
    expect(plan.firstChange?.routeChange?.diff).toEqual(["- Again.", "+ Once more."]);
  });

  describe("through a fan-out", () => {
    /** A thread whose writer fans out to the reviewer (the join), and a version of its workflow. */
    async function fanningThread(edit: (w: typeof loop) => void) {
      const child = await seedThread(store, { workflow: loop, prompt: "child", cwd: home });
      const fanning = structuredClone(loop);
      fanning.graph.writer = {
        written: {
          role: "reviewer",
          prompt: "Review {{{text}}}",
          fanout: { workflow: child.workflowHash },
        },
      } as (typeof fanning.graph)[string];
      fanning.roles.reviewer = {
        ...fanning.roles.reviewer!,
        join: true,
      } as (typeof fanning.roles)[string];
      const { thread } = await seedThread(store, { workflow: fanning, prompt: "p", cwd: home });
      await appendStep(store, thread, {
        role: "writer",
        output: { $status: "written", text: "a" },
      });
      const other = structuredClone(fanning);
      edit(other);
      const seeded = await seedThread(store, { workflow: other, prompt: "o", cwd: home });
      const payload = await store.cas.getPayload<WorkflowPayload>(seeded.workflowHash, "workflow");
      return { thread, workflow: { hash: seeded.workflowHash, payload } };
    }

    it("reuses the steps up to a fan-out that is the same, and leaves it to run afresh", async () => {
      const { thread, workflow } = await fanningThread((w) => {
        w.description = "edited";
      });
      const plan = await planRebase(store, thread, workflow);
      expect(plan.reused.map((s) => s.role)).toEqual(["writer"]);
      expect(plan.firstChange).toBeNull();
    });

    it("refuses to reuse the join of a fan-out that is the same", async () => {
      const { thread, workflow } = await fanningThread((w) => {
        w.description = "edited";
      });
      await appendStep(store, thread, { role: "reviewer", output: { $status: "approved" } });
      await expect(planRebase(store, thread, workflow)).rejects.toMatchObject({
        code: "REBASE_UNSUPPORTED",
        message: expect.stringContaining("reusing a fan-out's join (step 2)"),
      });
    });

    it("parts at the join when the fan-out edge or the join role changed", async () => {
      const edge = await fanningThread((w) => {
        w.graph.writer!.written!.fanout!.concurrency = 2;
      });
      await appendStep(store, edge.thread, { role: "reviewer", output: { $status: "approved" } });
      const plan = await planRebase(store, edge.thread, edge.workflow);
      expect(plan.reused.map((s) => s.role)).toEqual(["writer"]);
      expect(plan.firstChange).toMatchObject({ step: 2, role: "reviewer", roleChange: null });
      expect(plan.firstChange?.routeChange?.rebased.fanout).toMatchObject({ concurrency: 2 });

      const join = await fanningThread((w) => {
        w.roles.reviewer!.goal = "Join carefully.";
      });
      await appendStep(store, join.thread, { role: "reviewer", output: { $status: "approved" } });
      const joined = await planRebase(store, join.thread, join.workflow);
      expect(joined.firstChange).toMatchObject({ step: 2, roleChange: { fields: ["goal"] } });
    });

    it("parts before a fan-out when the edit changes a step before it", async () => {
      const { thread, workflow } = await fanningThread((w) => {
        w.roles.writer!.goal = "Write better.";
      });
      const plan = await planRebase(store, thread, workflow);
      expect(plan.reused).toEqual([]);
      expect(plan.firstChange).toMatchObject({ step: 1, roleChange: { fields: ["goal"] } });
    });
  });
});

describe("writeRebase", () => {
  it("makes a new thread holding the reused steps, re-linked onto the edited workflow", async () => {
    const { thread, steps } = await loopThread();
    const before = await store.threads.get(thread);
    const other = await version((w) => {
      w.graph.reviewer!.changes = { role: "writer", prompt: "Revise it: {{{notes}}}" };
    });
    const plan = await planRebase(store, thread, other);
    const { pointer, steps: reused } = await writeRebase(store, plan, { nowMs: 1_700_000_000_000 });

    expect(pointer).toMatchObject({
      workflowHash: other.hash,
      status: "idle",
      steps: 2,
      currentRole: "reviewer",
      title: "p (rebased)",
      rebasedFrom: { thread, step: steps[1] },
    });
    const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
    const recordedStart = await store.cas.getPayload<StartPayload>(before.start, "start");
    expect(start).toEqual({ ...recordedStart, workflow: other.hash });
    // Each copy is the recorded step with another start and prev: output, body, prompts, usage.
    let prev: string | null = null;
    for (const hash of steps.slice(0, 2)) {
      const recorded = await store.cas.getPayload<StepPayload>(hash, "step");
      const copy = await store.cas.getPayload<StepPayload>(reused.get(hash)!, "step");
      expect(copy).toEqual({ ...recorded, start: pointer.start, prev });
      prev = reused.get(hash)!;
    }
    expect(pointer.head).toBe(prev);
    // The recorded thread is as it was.
    expect(await store.threads.get(thread)).toEqual(before);

    // Rebasing again onto the same workflow writes the same nodes.
    const again = await writeRebase(store, plan, { nowMs: 1_700_000_000_001 });
    expect(again.pointer.start).toBe(pointer.start);
    expect(again.pointer.head).toBe(pointer.head);
  });

  it("starts from a new StartNode when no step is reused", async () => {
    const { thread } = await loopThread();
    const other = await version((w) => {
      w.graph.$START!.new = { role: "writer", prompt: "Write two lines." };
    });
    const plan = await planRebase(store, thread, other);
    const { pointer } = await writeRebase(store, plan);
    expect(pointer).toMatchObject({ steps: 0, currentRole: null, head: pointer.start });
    expect(pointer.rebasedFrom).toEqual({ thread, step: (await store.threads.get(thread)).start });
  });
});

describe("lineDiff", () => {
  it("keeps the common lines out", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc")).toEqual(["- b", "+ B"]);
    expect(lineDiff("same", "same")).toEqual([]);
    expect(lineDiff("a", "a\nb")).toEqual(["+ b"]);
  });
});
