import { emptyUsage } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { pointer } from "../__testing__/store-fixtures.js";
import { parsePointer, pointerProblem } from "./pointer-check.js";

/** The problem of a valid pointer with `edit` applied. */
function problemOf(edit: (p: Record<string, unknown>) => void): string | null {
  const p: Record<string, unknown> = pointer();
  edit(p);
  return pointerProblem(p, p.thread as string);
}

describe("pointerProblem", () => {
  it("takes a pointer with every field its schema declares, and keys it does not know", () => {
    const full = pointer({
      status: "suspended",
      suspended: {
        role: "r",
        reason: "rate limited",
        kind: "retry",
        prompt: "p",
        location: null,
        retryAfter: "2026-01-01T00:10:00.000Z",
        replaceHead: true,
      },
      forkedFrom: "0000000000009",
      agent: "claude",
      worktree: { path: "/w", branch: "uwf/x", repo: "/r", base: "abc123" },
      parent: { thread: "01ARZ3NDEKTSV4RRFFQ69G5FAV", step: "0000000000009", index: 0 },
      usage: emptyUsage(),
      unknownCostSteps: 0,
      rev: 3,
    });
    expect(pointerProblem(full, full.thread)).toBeNull();
    expect(pointerProblem({ ...full, fromTheFuture: [1] }, full.thread)).toBeNull();
  });

  it("says what is wrong with each field, the ones it once skipped too", () => {
    const cases: [(p: Record<string, unknown>) => void, string][] = [
      [(p) => delete p.workflow, "`workflow` is missing"],
      [(p) => (p.head = "nope"), '`head` is "nope", not a CAS hash'],
      [(p) => (p.forkedFrom = null), "`forkedFrom` is null, not a string"],
      [
        (p) => (p.status = "running"),
        '`status` is "running", not idle, suspended, completed or cancelled',
      ],
      [(p) => (p.currentRole = 3), "`currentRole` is 3, not a string or null"],
      [(p) => (p.steps = 1.5), "`steps` is 1.5, not an integer"],
      [(p) => (p.rev = -1), "`rev` is -1, less than 0"],
      [
        (p) => (p.createdAt = "yesterday"),
        '`createdAt` is "yesterday", not an ISO 8601 time (UTC)',
      ],
      [
        (p) => (p.suspended = { role: "r", reason: "?", kind: "other" }),
        '`suspended.kind` is "other", not question, failure, budget, human, guard, retry or fanout',
      ],
      [
        (p) => (p.suspended = { role: "r", reason: "?", kind: "guard", guard: "maxCost" }),
        '`suspended.guard` is "maxCost", not maxSteps or maxVisits',
      ],
      [
        (p) => (p.suspended = { role: "r", reason: "?", kind: "retry", retryAfter: "soon" }),
        '`suspended.retryAfter` is "soon", not an ISO 8601 time (UTC)',
      ],
      [
        (p) => (p.suspended = { role: "r", reason: "?", kind: "failure", location: 3 }),
        "`suspended.location` is 3, not a string or null",
      ],
      [
        (p) => (p.suspended = { role: "r", reason: "?", kind: "failure", replaceHead: "yes" }),
        '`suspended.replaceHead` is "yes", not a boolean',
      ],
      [(p) => (p.suspended = []), "`suspended` is an empty array, not null or an object"],
      [(p) => (p.agent = 3), "`agent` is 3, not a string"],
      [(p) => (p.worktree = "/w"), '`worktree` is "/w", not an object'],
      [
        (p) => (p.worktree = { path: 3, branch: "b", repo: "/r", base: "abc" }),
        "`worktree.path` is 3, not a string",
      ],
      [(p) => (p.usage = "lots"), '`usage` is "lots", not an object'],
      [
        (p) => (p.usage = { ...emptyUsage(), costUsd: "1" }),
        '`usage.costUsd` is "1", not a number or null',
      ],
      [(p) => (p.unknownCostSteps = -2), "`unknownCostSteps` is -2, less than 0"],
      [
        (p) => (p.parent = { thread: "not-an-id", step: "0000000000009", index: 0 }),
        '`parent.thread` is "not-an-id", not a thread id',
      ],
      [
        (p) => (p.parent = { thread: "01ARZ3NDEKTSV4RRFFQ69G5FAV", step: "short", index: -1 }),
        '`parent.step` is "short", not a CAS hash; `parent.index` is -1, less than 0',
      ],
    ];
    for (const [edit, problem] of cases) expect(problemOf(edit)).toBe(problem);
  });

  it("names three problems and counts the rest", () => {
    const p = pointer();
    expect(pointerProblem({ thread: p.thread }, p.thread)).toBe(
      "`workflow` is missing; `workflowHash` is missing; `start` is missing (and 8 more)",
    );
  });

  it("refuses what is not an object, and a pointer of another thread", () => {
    const p = pointer();
    expect(pointerProblem([p], p.thread)).toBe("not a JSON object");
    const other = pointer().thread;
    expect(pointerProblem(p, other)).toBe(`it names thread "${p.thread}", not ${other}`);
  });
});

describe("parsePointer", () => {
  it("parses a sound pointer file, and says why another is not one", () => {
    const p = pointer();
    expect(parsePointer(JSON.stringify(p), p.thread)).toEqual({ pointer: p });
    expect(parsePointer(" \n", p.thread)).toEqual({ problem: "the file is empty" });
    expect(parsePointer("{", p.thread)).toMatchObject({
      problem: expect.stringMatching(/^not JSON \(/),
    });
    expect(parsePointer(JSON.stringify({ ...p, steps: "1" }), p.thread)).toEqual({
      problem: '`steps` is "1", not an integer',
    });
  });
});
