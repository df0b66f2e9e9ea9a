import type { UsageTotal } from "@united-workforce/protocol";
import type { RunLimits } from "@united-workforce/store";
import { usdText } from "@united-workforce/util";

/** The usage a run (and the fan-out children it runs) spent; its limits are checked on it. */
export interface RunBudget {
  spent: UsageTotal;
}

/**
 * Why the run may not start another step, or null. Cost is fail-closed: a step that reported no
 * cost makes the run's cost unknown, so a cost limit cannot be shown to hold and the run stops.
 */
export function budgetReached(limits: RunLimits, spent: UsageTotal): string | null {
  if (limits.maxSteps !== undefined && spent.steps >= limits.maxSteps) {
    return `this run reached its step limit (${spent.steps} of ${limits.maxSteps})`;
  }
  if (limits.maxCostUsd === undefined) return null;
  const cost = usdText(spent.costUsd ?? 0);
  if (spent.unknownCostSteps > 0) {
    const which = spent.unknownCostSteps === 1 ? "1 step" : `${spent.unknownCostSteps} steps`;
    return `this run's cost is unknown (${which} reported no cost; known cost ${cost}), so its cost limit of ${usdText(limits.maxCostUsd)} cannot be checked`;
  }
  if ((spent.costUsd ?? 0) >= limits.maxCostUsd) {
    return `this run reached its cost limit (${cost} of ${usdText(limits.maxCostUsd)})`;
  }
  return null;
}
