import type { Usage, UsageTotal } from "@united-workforce/protocol";

/**
 * A cost as a reader should take it: `unknown` when no step reported one, and marked as a lower
 * bound (`≥ $1.20, 2 steps unknown`) when some did not — never an unknown summed as 0.
 */
export function costText(
  total: Pick<UsageTotal, "costUsd" | "unknownCostSteps" | "steps">,
): string {
  if (total.costUsd === null) return total.steps === 0 ? "$0" : "unknown";
  const usd = usdText(total.costUsd);
  if (total.unknownCostSteps === 0) return usd;
  const steps = total.unknownCostSteps === 1 ? "1 step" : `${total.unknownCostSteps} steps`;
  return `≥ ${usd} (${steps} unknown)`;
}

export function usdText(value: number): string {
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** Input + output tokens, or `?` when neither was reported. */
export function tokensText(usage: Pick<Usage, "inputTokens" | "outputTokens">): string {
  if (usage.inputTokens === null && usage.outputTokens === null) return "?";
  return `${usage.inputTokens ?? "?"} in / ${usage.outputTokens ?? "?"} out`;
}

/** One step's cost: its figure, or `unknown`. */
export function stepCostText(usage: Pick<Usage, "costUsd">): string {
  return usage.costUsd === null ? "unknown" : usdText(usage.costUsd);
}

/** Rows of cells as plain columns, left-aligned, two spaces apart. */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
