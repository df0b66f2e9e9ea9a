import {
  appendStep,
  openHomeStore,
  seedThread,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planDevReview } from "../__fixtures__/workflows.js";
import { readStepView, renderStepMarkdown } from "./step-markdown.js";

let temp: TempHome;
beforeEach(async () => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

describe("renderStepMarkdown", () => {
  it("shows role, status, facts, the instruction, output fields and body", async () => {
    const { thread } = await seedThread(temp.home, {
      workflow: planDevReview,
      prompt: "x",
      cwd: temp.home,
    });
    const hash = await appendStep(temp.home, thread, {
      role: "planner",
      output: { $status: "ready", plan: "write tests" },
      body: "## Plan\n\nTests first.",
      edgePrompt: "Plan the task.",
      startedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
    });
    const view = await readStepView((await openHomeStore(temp.home)).cas, hash);
    expect(view).toMatchObject({ role: "planner", status: "ready", prev: null, attempts: 1 });
    expect(renderStepMarkdown(view, { index: 1 })).toBe(
      [
        "## 1. planner · `$status: ready`",
        `_test-fixture · 2026-01-02T03:04:05.000Z · 1 ms · step ${hash}_`,
        "> Plan the task.",
        "```yaml\nplan: write tests\n```",
        "## Plan\n\nTests first.",
      ].join("\n\n"),
    );
  });
});
