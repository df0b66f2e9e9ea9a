import { describe, expect, it } from "vitest";
import { sumUsage } from "./usage.js";

describe("sumUsage", () => {
  it("adds what was reported and keeps the rest null", () => {
    expect(
      sumUsage([{ inputTokens: 10, costUsd: 0.25 }, undefined, { inputTokens: 5, turns: 2 }]),
    ).toEqual({
      inputTokens: 15,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd: 0.25,
      turns: 2,
      durationMs: null,
    });
  });

  it("counts a reported zero as known", () => {
    expect(sumUsage([{ outputTokens: 0 }]).outputTokens).toBe(0);
  });
});
