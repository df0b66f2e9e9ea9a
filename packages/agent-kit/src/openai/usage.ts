import type { Usage } from "@united-workforce/protocol";

/** The part of `Usage` a chat-completions answer can tell. */
export type ChatUsage = Pick<Partial<Usage>, "inputTokens" | "outputTokens" | "cacheReadTokens">;

/**
 * Usage from a chat-completions `usage` object: `prompt_tokens` → inputTokens (cached tokens
 * included, as the API counts them), `completion_tokens` → outputTokens,
 * `prompt_tokens_details.cached_tokens` → cacheReadTokens. A figure the provider does not
 * report is left out, so it adds up as unknown (null), never as 0.
 */
export function parseChatUsage(usage: unknown): ChatUsage {
  const out: ChatUsage = {};
  if (!isObject(usage)) return out;
  const input = count(usage.prompt_tokens);
  const output = count(usage.completion_tokens);
  const details = usage.prompt_tokens_details;
  const cached = isObject(details) ? count(details.cached_tokens) : null;
  if (input !== null) out.inputTokens = input;
  if (output !== null) out.outputTokens = output;
  if (cached !== null) out.cacheReadTokens = cached;
  return out;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
