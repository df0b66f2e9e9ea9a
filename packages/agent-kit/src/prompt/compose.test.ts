import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../context/history.js";
import { composePrompt } from "./compose.js";

const entry: HistoryEntry = {
  hash: "0123456789ABC",
  role: "planner",
  status: "ready",
  output: { $status: "ready", plan: "add a test" },
  body: "The plan.\n\nStep one.",
  bodyTruncated: false,
  agent: "uwf-mock",
  edgePrompt: "Plan it.",
  startedAtMs: 0,
  completedAtMs: 1,
  own: false,
};

const parts = {
  outputFormat: "## Output Format\n\n(the format)",
  workflowName: "plan-dev-review",
  role: "developer",
  roleDefinition: {
    frontmatter: "0123456789ABC",
    goal: "Write the code.",
    capabilities: ["file-edit", "shell"],
    procedure: "TDD.",
    output: "Files changed.",
  },
  task: "Fix the login bug",
  history: { entries: [entry], truncated: false },
  edgePrompt: "Implement add a test.",
};

describe("composePrompt", () => {
  it("puts the sections in the fixed order", () => {
    const prompt = composePrompt(parts);
    const headings = prompt.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual([
      "## Output Format",
      "## Goal",
      "## Capabilities",
      "## Procedure",
      "## Output",
      "## Task",
      "## What happened since",
      "## Moderator Instruction",
    ]);
    expect(prompt.trimEnd().endsWith("## Moderator Instruction\n\nImplement add a test.")).toBe(
      true,
    );
  });

  it("renders the role, the task and each earlier step", () => {
    const prompt = composePrompt(parts);
    expect(prompt).toContain(
      "You are the `developer` role of the `plan-dev-review` workflow.\n\nWrite the code.",
    );
    expect(prompt).toContain("- file-edit\n- shell");
    expect(prompt).toContain("## Task\n\nFix the login bug");
    expect(prompt).toContain(
      "### planner — `$status: ready`\n- plan: add a test\n\n> The plan.\n>\n> Step one.",
    );
  });

  it("leaves out empty role sections and says when nothing happened yet", () => {
    const prompt = composePrompt({
      ...parts,
      roleDefinition: { frontmatter: "0123456789ABC" },
      history: { entries: [], truncated: false },
    });
    const headings = prompt.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual([
      "## Output Format",
      "## Goal",
      "## Task",
      "## What happened since",
      "## Moderator Instruction",
    ]);
    expect(prompt).toContain("Nothing yet: this is the first step of the thread.");
  });

  it("marks the role's own previous step and a truncated history", () => {
    const prompt = composePrompt({
      ...parts,
      history: { entries: [{ ...entry, own: true }], truncated: true },
    });
    expect(prompt).toContain("(Earlier steps are left out to keep this prompt short.)");
    expect(prompt).toContain("### planner — `$status: ready` (your previous turn)");
  });
});
