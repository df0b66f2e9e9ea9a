import { cleanUsage } from "@united-workforce/agent-kit";
import type { Usage } from "@united-workforce/protocol";
import type { CodexTokenTotals } from "./events.js";

export const NO_TOKENS: CodexTokenTotals = {
  input_tokens: 0,
  cached_input_tokens: 0,
  cache_write_input_tokens: 0,
  output_tokens: 0,
};

/**
 * One run's usage: codex reports the session's totals, so a resumed session's run is its
 * totals minus the totals before it (`baseline`). Codex's `input_tokens` is the whole prompt;
 * uwf's `inputTokens` leaves out what was read from or written to the cache (see
 * docs/decisions/usage-accounting.md).
 * No totals at all (the run failed before a model answered): usage unknown.
 */
export function runUsage(
  totals: CodexTokenTotals | null,
  baseline: CodexTokenTotals,
): Partial<Usage> {
  if (totals === null) return {};
  const delta = (field: keyof CodexTokenTotals): number =>
    Math.max(0, totals[field] - baseline[field]);
  const prompt = delta("input_tokens");
  const cacheRead = delta("cached_input_tokens");
  const cacheWrite = delta("cache_write_input_tokens");
  const uncached = prompt - cacheRead - cacheWrite;
  return cleanUsage({
    // A provider that counts cache writes outside the prompt would make this negative.
    inputTokens: uncached >= 0 ? uncached : Math.max(0, prompt - cacheRead),
    outputTokens: delta("output_tokens"),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  });
}
