import { describe, expect, it } from "vitest";
import { parseChatUsage } from "./usage.js";

describe("parseChatUsage", () => {
  it("maps prompt, completion and cached tokens", () => {
    expect(
      parseChatUsage({
        prompt_tokens: 1_200,
        completion_tokens: 80,
        total_tokens: 1_280,
        prompt_tokens_details: { cached_tokens: 1_024 },
      }),
    ).toEqual({ inputTokens: 1_200, outputTokens: 80, cacheReadTokens: 1_024 });
  });

  it("leaves out what the provider does not report, so it stays unknown rather than 0", () => {
    const usage = parseChatUsage({ prompt_tokens: 10 });
    expect(usage).toEqual({ inputTokens: 10 });
    expect("cacheReadTokens" in usage).toBe(false);
    expect(parseChatUsage(undefined)).toEqual({});
    expect(parseChatUsage({ prompt_tokens: "10", completion_tokens: -1 })).toEqual({});
  });

  it("keeps a reported zero", () => {
    expect(
      parseChatUsage({
        prompt_tokens: 5,
        completion_tokens: 0,
        prompt_tokens_details: { cached_tokens: 0 },
      }),
    ).toEqual({ inputTokens: 5, outputTokens: 0, cacheReadTokens: 0 });
  });
});
