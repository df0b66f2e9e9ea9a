import { describe, expect, it } from "vitest";
import { ERROR_EXIT_CODES, exitCodeFor } from "./exit-codes.js";
import { addUsage, emptyUsage } from "./nodes.js";

describe("addUsage", () => {
  it("keeps unknown figures null until someone reports them", () => {
    const total = addUsage(addUsage(emptyUsage(), { inputTokens: 10 }), {
      inputTokens: 5,
      costUsd: 0.01,
    });
    expect(total).toEqual({ ...emptyUsage(), inputTokens: 15, costUsd: 0.01 });
  });

  it("ignores figures that are not finite numbers", () => {
    const bad = { inputTokens: Number.NaN, turns: "3" as unknown as number };
    expect(addUsage(emptyUsage(), bad)).toEqual(emptyUsage());
  });
});

describe("exit codes", () => {
  it("map every error code as DESIGN §12 says", () => {
    expect(exitCodeFor("USAGE")).toBe(2);
    expect(exitCodeFor("WORKFLOW_INVALID")).toBe(3);
    expect(exitCodeFor("AGENT_FAILED")).toBe(4);
    expect(exitCodeFor("THREAD_BUSY")).toBe(5);
    expect(exitCodeFor("INTERRUPTED")).toBe(130);
    expect(exitCodeFor("SOMETHING_NEW")).toBe(1);
    for (const code of Object.values(ERROR_EXIT_CODES))
      expect([1, 2, 3, 4, 5, 130]).toContain(code);
  });
});
