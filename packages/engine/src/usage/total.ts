import { addUsage, emptyUsage, type Usage, type UsageTotal } from "@united-workforce/protocol";

export function emptyTotal(): UsageTotal {
  return { ...emptyUsage(), steps: 0, unknownCostSteps: 0 };
}

/** Whether a step's usage reported its cost. */
export function costKnown(usage: Usage): boolean {
  return typeof usage.costUsd === "number" && Number.isFinite(usage.costUsd);
}

/**
 * Add one step's usage. A figure the step did not report stays out of the sum (unknown is not
 * zero); a step without a cost is counted in `unknownCostSteps`, so a total that lacks some
 * costs says so instead of passing for complete.
 */
export function addToTotal(total: UsageTotal, usage: Usage): UsageTotal {
  return {
    ...addUsage(total, usage),
    steps: total.steps + 1,
    unknownCostSteps: total.unknownCostSteps + (costKnown(usage) ? 0 : 1),
  };
}

/** Add two totals. */
export function mergeTotals(a: UsageTotal, b: UsageTotal): UsageTotal {
  return {
    ...addUsage(a, b),
    steps: a.steps + b.steps,
    unknownCostSteps: a.unknownCostSteps + b.unknownCostSteps,
  };
}
