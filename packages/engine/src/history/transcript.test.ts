import type { StepPayload } from "@united-workforce/protocol";
import {
  appendStep,
  openHomeStore,
  seedThread,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { renderStart, renderStep, renderTask } from "./transcript.js";

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

/** A writer step, stored, then rendered as `as` says (the stored payload, or changed). */
async function renderWriterStep(
  as: { label?: string; attempts?: number; usage?: Partial<StepPayload["usage"]> } = {},
): Promise<{ hash: string; text: string }> {
  const store = await openHomeStore(temp.home);
  try {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "x", cwd: temp.home });
    const hash = await appendStep(store, thread, {
      role: "writer",
      output: { $status: "written", text: "a line" },
      body: "## Draft\n\nA line.\n",
      edgePrompt: "Write a line.\n\nKeep it short.",
      startedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
    });
    const step = await store.cas.getPayload<StepPayload>(hash, "step");
    const shown = {
      ...step,
      ...(as.attempts === undefined ? {} : { attempts: as.attempts }),
      usage: { ...step.usage, ...as.usage },
    };
    return { hash, text: await renderStep(store.cas, hash, shown, as.label) };
  } finally {
    await store.close();
  }
}

describe("renderStep", () => {
  it("adds the usage the agent reported to the facts, leaving out what is unknown", async () => {
    const reported = await renderWriterStep({
      usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 900, costUsd: 0.01321 },
    });
    expect(reported.text.split("\n")[1]).toBe(
      `<!-- step ${reported.hash} · agent test-fixture · 2026-01-02T03:04:05.000Z · 1 ms · 1,200 in / 80 out tokens · 900 cached · $0.0132 -->`,
    );
    const outputOnly = await renderWriterStep({ usage: { outputTokens: 5 } });
    expect(outputOnly.text.split("\n")[1]).toContain(" · ? in / 5 out tokens -->");
  });

  it("shows role and status, a line of facts, the instruction, the frontmatter and the body", async () => {
    const { hash, text } = await renderWriterStep({ label: "Step 1" });
    expect(text).toBe(
      [
        "## Step 1 · writer → written",
        `<!-- step ${hash} · agent test-fixture · 2026-01-02T03:04:05.000Z · 1 ms -->`,
        "",
        "> Write a line.",
        ">",
        "> Keep it short.",
        "",
        "```yaml",
        "$status: written",
        "text: a line",
        "```",
        "",
        "## Draft",
        "",
        "A line.",
        "",
      ].join("\n"),
    );
  });

  it("counts the attempts of a step whose output needed repairs", async () => {
    const { hash, text } = await renderWriterStep({ attempts: 3 });
    expect(text.split("\n").slice(0, 2)).toEqual([
      "## writer → written",
      `<!-- step ${hash} · agent test-fixture · 2026-01-02T03:04:05.000Z · 1 ms · 3 attempts -->`,
    ]);
  });
});

describe("renderStart", () => {
  it("shows the thread's task", () => {
    const start = { workflow: "W", prompt: "  Fix #42.\n", cwd: "/", createdAtMs: 0 };
    expect(renderStart(start)).toBe("## Task\n\nFix #42.\n");
  });

  it("adds the thread's typed inputs as a YAML block, or says none were given", () => {
    const start = { workflow: "W", prompt: "Triage.", cwd: "/", createdAtMs: 0 };
    expect(renderTask({ ...start, inputs: { issue: 42, title: "007" } })).toBe(
      'Triage.\n\n### Inputs\n\n```yaml\nissue: 42\ntitle: "007"\n```',
    );
    expect(renderTask({ ...start, inputs: {} })).toBe("Triage.\n\n### Inputs\n\nNone were given.");
    expect(renderTask(start)).toBe("Triage.");
  });
});
