import { describe, expect, it } from "vitest";
import { addToTotal, emptyTotal } from "../usage/total.js";
import { budgetReached } from "./budget.js";

const usage = (costUsd: number | null) => ({
  inputTokens: 10,
  outputTokens: 1,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  costUsd,
  turns: 1,
  durationMs: 5,
});

const spent = (...costs: (number | null)[]) =>
  costs.reduce((total, cost) => addToTotal(total, usage(cost)), emptyTotal());

describe("a run's budget", () => {
  it("lets a run start its first step whatever the limits", () => {
    expect(budgetReached({ maxSteps: 1, maxCostUsd: 0.01 }, emptyTotal())).toBeNull();
  });

  it("stops at the step limit, not before", () => {
    expect(budgetReached({ maxSteps: 3 }, spent(0.1, 0.1))).toBeNull();
    expect(budgetReached({ maxSteps: 3 }, spent(0.1, 0.1, 0.1))).toBe(
      "this run reached its step limit (3 of 3)",
    );
  });

  it("stops once the known cost reaches the limit", () => {
    expect(budgetReached({ maxCostUsd: 1 }, spent(0.4, 0.5))).toBeNull();
    expect(budgetReached({ maxCostUsd: 1 }, spent(0.5, 0.5))).toBe(
      "this run reached its cost limit ($1.00 of $1.00)",
    );
  });

  it("treats an unknown cost as unknown: the cost limit cannot be shown to hold", () => {
    expect(budgetReached({ maxCostUsd: 100 }, spent(0.01, null, null))).toBe(
      "this run's cost is unknown (2 steps reported no cost; known cost $0.0100), so its cost limit of $100.00 cannot be checked",
    );
    // Without a cost limit, unknown costs do not matter.
    expect(budgetReached({ maxSteps: 5 }, spent(null, null))).toBeNull();
  });
});
