import { describe, expect, it } from "vitest";
import { addPartialUsage, anthropicUsage, cleanUsage, geminiUsage, openaiUsage } from "./usage.js";

describe("usage parsers", () => {
  it("maps Anthropic usage, cache tokens included", () => {
    expect(
      anthropicUsage({
        input_tokens: 12,
        output_tokens: 7,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 30,
        service_tier: "standard",
      }),
    ).toEqual({ inputTokens: 12, outputTokens: 7, cacheReadTokens: 100, cacheWriteTokens: 30 });
  });

  it("leaves out what the source does not report: unknown is not zero", () => {
    expect(anthropicUsage({ output_tokens: 5 })).toEqual({ outputTokens: 5 });
    expect(anthropicUsage(undefined)).toEqual({});
    expect(anthropicUsage({ input_tokens: "12", output_tokens: -1 })).toEqual({});
    expect(openaiUsage(null)).toEqual({});
    expect(geminiUsage("nope")).toEqual({});
  });

  it("takes cached tokens out of OpenAI's prompt count, in each of its shapes", () => {
    expect(
      openaiUsage({
        prompt_tokens: 50,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 20 },
      }),
    ).toEqual({ inputTokens: 30, outputTokens: 9, cacheReadTokens: 20 });
    expect(
      openaiUsage({
        input_tokens: 40,
        output_tokens: 3,
        input_tokens_details: { cached_tokens: 0 },
      }),
    ).toEqual({ inputTokens: 40, outputTokens: 3, cacheReadTokens: 0 });
    expect(openaiUsage({ input_tokens: 40, cached_input_tokens: 8, output_tokens: 2 })).toEqual({
      inputTokens: 32,
      outputTokens: 2,
      cacheReadTokens: 8,
    });
    expect(openaiUsage({ prompt_tokens: 5 })).toEqual({ inputTokens: 5 });
  });

  it("maps Gemini usageMetadata", () => {
    expect(
      geminiUsage({ promptTokenCount: 10, candidatesTokenCount: 4, cachedContentTokenCount: 3 }),
    ).toEqual({ inputTokens: 7, outputTokens: 4, cacheReadTokens: 3 });
  });

  it("keeps only usage fields that hold numbers, and adds partial usages field by field", () => {
    expect(cleanUsage({ costUsd: 0.01, turns: 2, inputTokens: null, other: 3 })).toEqual({
      costUsd: 0.01,
      turns: 2,
    });
    expect(
      addPartialUsage({ inputTokens: 1, costUsd: 0.5 }, null, { inputTokens: 2, turns: 1 }),
    ).toEqual({ inputTokens: 3, costUsd: 0.5, turns: 1 });
    expect(addPartialUsage()).toEqual({});
  });
});
