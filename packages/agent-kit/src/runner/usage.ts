import { emptyUsage, type Usage } from "@united-workforce/protocol";

const FIELDS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "costUsd",
  "turns",
  "durationMs",
] as const satisfies readonly (keyof Usage)[];

/**
 * Add up usage over attempts. A field stays null until some attempt reports it: unknown is not
 * zero.
 */
export function sumUsage(parts: (Partial<Usage> | undefined)[]): Usage {
  const total = emptyUsage();
  for (const part of parts) {
    if (!part) continue;
    for (const field of FIELDS) {
      const value = part[field];
      if (typeof value === "number" && Number.isFinite(value))
        total[field] = (total[field] ?? 0) + value;
    }
  }
  return total;
}
