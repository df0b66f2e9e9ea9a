import { describe, expect, it } from "vitest";
import {
  costFact,
  costText,
  diffStatText,
  durationText,
  groupDigits,
  stepCost,
  tokensFact,
  tokensText,
  usdText,
} from "./figures.js";

describe("groupDigits", () => {
  it("groups thousands as en-US does", () => {
    const values = [0, 7, 12, 999, 1000, 12_345, 123_456, 1_234_567, -1, -1000, -987_654_321];
    for (let n = 1; n < Number.MAX_SAFE_INTEGER / 7; n = n * 7 + 3) values.push(n, -n);
    values.push(Number.MAX_SAFE_INTEGER);
    for (const value of values) expect(groupDigits(value)).toBe(value.toLocaleString("en-US"));
  });

  it("leaves a fraction or a huge number to toLocaleString", () => {
    expect(groupDigits(1234.5)).toBe("1,234.5");
    expect(groupDigits(2 ** 60)).toBe((2 ** 60).toLocaleString("en-US"));
  });
});

describe("costs", () => {
  it("writes dollars with four decimals under one, two above, grouped", () => {
    expect([0, 0.0123, 0.5, 1, 1.2, 1234.5, 1_234_567.891].map(usdText)).toEqual([
      "$0",
      "$0.0123",
      "$0.5000",
      "$1.00",
      "$1.20",
      "$1,234.50",
      "$1,234,567.89",
    ]);
  });

  it("tells $0, unknown and a lower bound apart", () => {
    expect(costText({ costUsd: null, steps: 0, unknownCostSteps: 0 })).toBe("$0");
    expect(costText({ costUsd: 0, steps: 3, unknownCostSteps: 0 })).toBe("$0");
    expect(costText({ costUsd: null, steps: 2, unknownCostSteps: 2 })).toBe("unknown");
    expect(costText({ costUsd: 1.2, steps: 3, unknownCostSteps: 1 })).toBe(
      "≥ $1.20 (1 step unknown)",
    );
    expect(costText({ costUsd: 0.5, steps: 4, unknownCostSteps: 2 })).toBe(
      "≥ $0.5000 (2 steps unknown)",
    );
    expect(costFact({ costUsd: null, steps: 2, unknownCostSteps: 2 })).toBe("cost unknown");
    expect(costFact(stepCost({ costUsd: 0.0123 }))).toBe("$0.0123");
    expect(costFact(stepCost(null))).toBe("cost unknown");
    expect(costText(stepCost({ costUsd: 0 }))).toBe("$0");
  });
});

describe("tokens and durations", () => {
  it("groups token counts and marks what was not reported", () => {
    expect(tokensText({ inputTokens: 12_345, outputTokens: 678 })).toBe("12,345 in / 678 out");
    expect(tokensText({ inputTokens: 5, outputTokens: null })).toBe("5 in / ? out");
    expect(tokensText({ inputTokens: null, outputTokens: null })).toBe("?");
    expect(tokensFact({ inputTokens: 1000, outputTokens: 2 })).toBe("1,000 in / 2 out tokens");
    expect(tokensFact(null)).toBe("tokens unknown");
  });

  it("writes durations from milliseconds to hours", () => {
    expect([0, 850, 4210, 245_000, 7_800_000].map(durationText)).toEqual([
      "0 ms",
      "850 ms",
      "4.2 s",
      "4 min 05 s",
      "2 h 10 min",
    ]);
  });
});

describe("diffStatText", () => {
  it("says what a step changed as git's summary does", () => {
    expect(diffStatText({ files: 3, insertions: 12, deletions: 4 })).toBe(
      "3 files changed, +12 −4",
    );
    expect(diffStatText({ files: 1, insertions: 1, deletions: 0 })).toBe("1 file changed, +1 −0");
    expect(diffStatText({ files: 0, insertions: 0, deletions: 0 })).toBe("no files changed");
  });
});
