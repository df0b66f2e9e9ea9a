import { isPlainObject, USAGE_FIELDS, type Usage } from "@united-workforce/protocol";

/**
 * Usage as agent CLIs and model APIs report it, turned into uwf's `Usage` fields. A figure the
 * source does not give stays absent (unknown is not zero). One convention across APIs:
 * `inputTokens` counts the prompt tokens that were neither read from nor written to the cache,
 * so `inputTokens + cacheReadTokens + cacheWriteTokens` is the whole prompt (see
 * docs/decisions/usage-accounting.md).
 */

/** A finite, non-negative number, or undefined. */
export function usageNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Only the known usage fields that hold a number; everything else is dropped. */
export function cleanUsage(source: Record<string, unknown>): Partial<Usage> {
  const usage: Partial<Usage> = {};
  for (const field of USAGE_FIELDS) {
    const value = usageNumber(source[field]);
    if (value !== undefined) usage[field] = value;
  }
  return usage;
}

/** Add partial usages: a field is present when at least one part reports it. */
export function addPartialUsage(...parts: (Partial<Usage> | null | undefined)[]): Partial<Usage> {
  const total: Partial<Usage> = {};
  for (const part of parts) {
    if (!part) continue;
    for (const field of USAGE_FIELDS) {
      const value = usageNumber(part[field]);
      if (value !== undefined) total[field] = (total[field] ?? 0) + value;
    }
  }
  return total;
}

/**
 * Anthropic Messages `usage` (also Claude Code's stream-json `usage`): `input_tokens` already
 * leaves the cache out.
 */
export function anthropicUsage(raw: unknown): Partial<Usage> {
  const u = record(raw);
  return cleanUsage({
    inputTokens: u.input_tokens,
    outputTokens: u.output_tokens,
    cacheReadTokens: u.cache_read_input_tokens,
    cacheWriteTokens: u.cache_creation_input_tokens,
  });
}

/**
 * OpenAI usage, Chat Completions (`prompt_tokens`, `prompt_tokens_details.cached_tokens`) or
 * Responses and Codex (`input_tokens`, `input_tokens_details.cached_tokens` or
 * `cached_input_tokens`): the prompt count includes cached tokens, which are taken out.
 */
export function openaiUsage(raw: unknown): Partial<Usage> {
  const u = record(raw);
  const prompt = usageNumber(u.input_tokens) ?? usageNumber(u.prompt_tokens);
  const cached =
    usageNumber(u.cached_input_tokens) ??
    usageNumber(record(u.input_tokens_details).cached_tokens) ??
    usageNumber(record(u.prompt_tokens_details).cached_tokens);
  return cleanUsage({
    inputTokens: prompt !== undefined && cached !== undefined ? prompt - cached : prompt,
    outputTokens: usageNumber(u.output_tokens) ?? usageNumber(u.completion_tokens),
    cacheReadTokens: cached,
  });
}

/** Gemini `usageMetadata`: `promptTokenCount` includes `cachedContentTokenCount`. */
export function geminiUsage(raw: unknown): Partial<Usage> {
  const u = record(raw);
  const prompt = usageNumber(u.promptTokenCount);
  const cached = usageNumber(u.cachedContentTokenCount);
  return cleanUsage({
    inputTokens: prompt !== undefined && cached !== undefined ? prompt - cached : prompt,
    outputTokens: usageNumber(u.candidatesTokenCount),
    cacheReadTokens: cached,
  });
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}
