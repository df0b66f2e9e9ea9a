import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StartPayload, StepPayload, WorkflowPayload } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loop } from "../__fixtures__/workflows.js";
import { Router } from "../moderator/router.js";
import { planPoke } from "../runner/plans.js";
import { threadStarts } from "./chain.js";
import { lineDiff, planRebase, writeRebase } from "./rebase.js";
import { verifyThread } from "./verify-thread.js";

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

    it("reuses the join of a fan-out that is the same, its children staying the recorded ones", async () => {
      const { thread, workflow } = await fanningThread((w) => {
        w.description = "edited";
      });
      const join = await appendStep(store, thread, {
        role: "reviewer",
        output: { $status: "approved" },
      });
      const plan = await planRebase(store, thread, workflow);
      expect(plan.reused.map((s) => s.role)).toEqual(["writer", "reviewer"]);
      const { pointer } = await writeRebase(store, plan);
      expect(pointer.head).toBe(join);
      expect(await verifyThread(store, pointer.thread)).toMatchObject({ ok: true, steps: 2 });
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
  it("shares the reused steps as they are, from a StartNode that continues the last", async () => {
    const { thread, steps } = await loopThread();
    const before = await store.threads.get(thread);
    const other = await version((w) => {
      w.graph.reviewer!.changes = { role: "writer", prompt: "Revise it: {{{notes}}}" };
    });
    const plan = await planRebase(store, thread, other);
    const { pointer } = await writeRebase(store, plan, { nowMs: 1_700_000_000_000 });

    expect(pointer).toMatchObject({
      workflowHash: other.hash,
      status: "idle",
      steps: 2,
      currentRole: "reviewer",
      title: "p (rebased)",
      rebasedFrom: { thread, step: steps[1] },
      // The head is the recorded step itself: its hash is kept.
      head: steps[1],
    });
    const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
    const recordedStart = await store.cas.getPayload<StartPayload>(before.start, "start");
    expect(start).toEqual({
      ...recordedStart,
      workflow: other.hash,
      rebase: { start: before.start, at: steps[1] },
    });
    // The recorded thread is as it was.
    expect(await store.threads.get(thread)).toEqual(before);
    expect(await verifyThread(store, pointer.thread)).toMatchObject({ ok: true, steps: 2 });

    // The next step links to the shared one under the new start; the chain still verifies.
    const next = await appendStep(store, pointer.thread, {
      role: "writer",
      output: { $status: "written", text: "c" },
      edgePrompt: "Revise it: shorter",
    });
    const written = await store.cas.getPayload<StepPayload>(next, "step");
    expect(written).toMatchObject({ start: pointer.start, prev: steps[1] });
    expect(await verifyThread(store, pointer.thread)).toMatchObject({ ok: true, steps: 3 });
    expect(await threadStarts(store.cas, pointer.start)).toEqual([pointer.start, before.start]);

    // Rebasing again onto the same workflow writes the same nodes.
    const { pointer: again } = await writeRebase(store, plan, { nowMs: 1_700_000_000_001 });
    expect(again.start).toBe(pointer.start);
    expect(again.head).toBe(steps[1]);
  });

  it("refuses to poke a head it shares with the recorded thread", async () => {
    const { thread } = await loopThread();
    const other = await version((w) => {
      w.graph.reviewer!.changes = { role: "writer", prompt: "Revise it: {{{notes}}}" };
    });
    const { pointer } = await writeRebase(store, await planRebase(store, thread, other));
    await expect(planPoke(new Router(store.cas), pointer, "more")).rejects.toMatchObject({
      code: "THREAD_STATE",
      message: expect.stringContaining("shares with the thread it was rebased from"),
    });
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
    const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
    expect(start.rebase).toBeUndefined();
  });
});

describe("verifying a rebased thread", () => {
  /** A loop thread rebased after its second step, then run on by one writer step. */
  async function rebased() {
    const { thread, steps } = await loopThread();
    const other = await version((w) => {
      w.graph.reviewer!.changes = { role: "writer", prompt: "Revise it: {{{notes}}}" };
    });
    const { pointer } = await writeRebase(store, await planRebase(store, thread, other));
    return { pointer, steps };
  }

  /** Move `thread`'s head to a step `change` makes from its head step. */
  async function tamper(thread: string, change: (step: StepPayload) => StepPayload) {
    const pointer = await store.threads.get(thread);
    const step = await store.cas.getPayload<StepPayload>(pointer.head, "step");
    const head = await store.cas.put(store.cas.builtin("step"), change(step));
    await store.threads.swap({ ...pointer, head }, pointer.rev ?? 0);
  }

  it("refuses a start that changes at a step other than the one the StartNode continues", async () => {
    const { pointer, steps } = await rebased();
    await appendStep(store, pointer.thread, {
      role: "writer",
      output: { $status: "written", text: "c" },
    });
    // The new step now claims to follow the first recorded step, not the one its start names.
    await tamper(pointer.thread, (step) => ({ ...step, prev: steps[0]! }));
    const report = await verifyThread(store, pointer.thread);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        hash: steps[0],
        reason: expect.stringContaining(`the thread's StartNode is ${pointer.start}`),
      }),
    );
  });

  it("refuses a recorded step's start in the part of the chain that is the rebased one's", async () => {
    const { pointer, steps } = await rebased();
    await appendStep(store, pointer.thread, {
      role: "writer",
      output: { $status: "written", text: "c" },
    });
    const recorded = await store.cas.getPayload<StepPayload>(steps[0]!, "step");
    // The new step keeps the recorded start instead of the rebased thread's.
    await tamper(pointer.thread, (step) => ({ ...step, start: recorded.start }));
    const report = await verifyThread(store, pointer.thread);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.reason).join("\n")).toContain(
      `the thread's StartNode is ${pointer.start}`,
    );
  });

  it("refuses a StartNode that continues a step its chain does not reach", async () => {
    const { pointer } = await rebased();
    const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
    const other = (await loopThread()).steps[1]!;
    const forged = await store.cas.put(store.cas.builtin("start3"), {
      ...start,
      rebase: { ...start.rebase!, at: other },
    });
    const now = await store.threads.get(pointer.thread);
    await store.threads.swap({ ...now, start: forged }, now.rev ?? 0);
    const report = await verifyThread(store, pointer.thread);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.reason).join("\n")).toContain(
      `continues step ${other}, which the chain does not reach`,
    );
  });
});

describe("lineDiff", () => {
  it("keeps the common lines out", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc")).toEqual(["- b", "+ B"]);
    expect(lineDiff("same", "same")).toEqual([]);
    expect(lineDiff("a", "a\nb")).toEqual(["+ b"]);
  });
});
