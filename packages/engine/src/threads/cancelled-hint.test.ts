import type { ThreadPointer } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { cancelledHint } from "./cancelled-hint.js";

const pointer: ThreadPointer = {
  thread: "01JD0000000000000000000000",
  workflow: "hello",
  workflowHash: "A08BG6RREZ30Y",
  start: "54SSRJ8RGKA41",
  head: "54SSRJ8RGKA41",
  status: "cancelled",
  currentRole: null,
  suspended: null,
  steps: 0,
  cwd: "/work/my app",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("cancelledHint", () => {
  it("sends a thread with steps to step fork", () => {
    expect(cancelledHint({ ...pointer, steps: 2, head: "7Q2M4Z3M1XH2C" })).toBe(
      "To continue its work, fork one of its steps: uwf step list 01JD0000000000000000000000, then uwf step fork <step>.",
    );
  });

  it("sends a thread without steps to a new thread of the same workflow version and cwd", () => {
    expect(cancelledHint(pointer)).toBe(
      `It has no step to fork; to do its work, start a new thread of the same workflow: uwf thread start A08BG6RREZ30Y -p "<task>" --cwd '/work/my app', with its task and any inputs (--input name=value), which uwf thread read 01JD0000000000000000000000 shows.`,
    );
  });

  it("starts the new thread from the repository when the cancelled one had its own worktree", () => {
    const worktree = { path: "/wt/01JD", branch: "uwf/01JD", repo: "/src/app", base: "abc" };
    expect(cancelledHint({ ...pointer, cwd: "/wt/01JD/pkg", worktree })).toContain(
      "--cwd /src/app/pkg --worktree, with its task",
    );
  });
});
