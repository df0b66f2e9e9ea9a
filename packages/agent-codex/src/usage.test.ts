import { describe, expect, it } from "vitest";
import { NO_TOKENS, runUsage } from "./usage.js";

const totals = (input: number, cached: number, write: number, output: number) => ({
  input_tokens: input,
  cached_input_tokens: cached,
  cache_write_input_tokens: write,
  output_tokens: output,
});

describe("runUsage", () => {
  it("splits codex's whole prompt into uncached, cache-read and cache-write tokens", () => {
    expect(runUsage(totals(100, 60, 10, 7), NO_TOKENS)).toEqual({
      inputTokens: 30,
      cacheReadTokens: 60,
      cacheWriteTokens: 10,
      outputTokens: 7,
    });
  });

  it("takes a resumed session's earlier totals off", () => {
    expect(runUsage(totals(40, 0, 0, 20), totals(30, 0, 0, 15))).toEqual({
      inputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 5,
    });
  });

  it("is unknown, not zero, when no turn completed", () => {
    expect(runUsage(null, NO_TOKENS)).toEqual({});
  });
});
