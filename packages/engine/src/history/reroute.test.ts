import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WorkflowPayload } from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { rerouteThread } from "./reroute.js";

let home: string;
let store: Store;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-reroute-"));
  store = await openHomeStore(home);
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

/** A relay thread whose reviewer asked a question: writer, then reviewer suspended. */
async function suspendedThread(): Promise<{ thread: string; steps: string[] }> {
  const { thread } = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
  const steps = [
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "hi" } }),
    await appendStep(store, thread, {
      role: "reviewer",
      output: { $status: "asks", question: "why?" },
    }),
  ];
  return { thread, steps };
}

/** Another version of relay, stored as `workflow add` would. */
async function version(change: (w: typeof relay) => void) {
  const copy = structuredClone(relay);
  change(copy);
  const seeded = await seedThread(store, { workflow: copy, prompt: "other", cwd: home });
  const payload = await store.cas.getPayload<WorkflowPayload>(seeded.workflowHash, "workflow");
  return { hash: seeded.workflowHash, payload };
}

describe("rerouteThread", () => {
  it("finds the same route at every step under the pinned workflow", async () => {
    const { thread } = await suspendedThread();
    const pointer = await store.threads.get(thread);
    const payload = await store.cas.getPayload<WorkflowPayload>(pointer.workflowHash, "workflow");
    const report = await rerouteThread(store, thread, { hash: pointer.workflowHash, payload });
    expect(report).toMatchObject({ ok: true, routeChanged: false, invalid: 0, firstChange: null });
    expect(report.steps.map((s) => [s.recorded.target, s.next])).toEqual([
      ["reviewer", "reviewer"],
      ["$SUSPEND", null],
    ]);
  });

  it("names where the route changes, with the edge prompt the other version would send", async () => {
    const { thread, steps } = await suspendedThread();
    const other = await version((w) => {
      w.graph.reviewer!.asks = { role: "writer", prompt: "Answer this: {{{question}}}" };
    });
    const report = await rerouteThread(store, thread, other);
    expect(report.firstChange).toEqual({
      step: 2,
      hash: steps[1],
      role: "reviewer",
      next: null,
      recorded: { target: "$SUSPEND", prompt: "why?", error: null },
      rerouted: { target: "writer", prompt: "Answer this: why?", error: null },
    });
    expect(report).toMatchObject({ ok: false, routeChanged: true, invalid: 0 });
  });

  it("reports an output that breaks the other role schema, and a routing error", async () => {
    const { thread } = await suspendedThread();
    const other = await version((w) => {
      w.roles.writer!.frontmatter = {
        properties: { $status: { const: "finished" }, text: { type: "string", minLength: 5 } },
        required: ["$status", "text"],
      };
      w.graph.writer = { finished: { role: "reviewer", prompt: "Review: {{{text}}}" } };
    });
    const report = await rerouteThread(store, thread, other);
    const [writer] = report.steps;
    expect(writer).toMatchObject({ valid: false, roleExists: true, same: false });
    expect(writer!.errors.join("; ")).toContain("must NOT have fewer than 5 characters");
    expect(writer!.rerouted).toEqual({
      target: null,
      prompt: null,
      error: 'no transition for role "writer" with status "written"',
    });
    expect(report.firstChange?.step).toBe(1);
  });
});
