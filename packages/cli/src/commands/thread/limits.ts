import type { RunLimits } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";

/** The options `thread exec` takes to bound a run. */
export const LIMIT_OPTIONS = [
  {
    flags: "--max-cost <usd>",
    type: "string",
    description:
      "suspend the thread before the next step once this run has cost this many US dollars (a step of unknown cost suspends it too)",
  },
  {
    flags: "--max-steps <n>",
    type: "integer",
    min: 1,
    description: "suspend the thread before the next step once this run has taken n steps",
    hint: "Say how many steps this run may take before a human decides, e.g. --max-steps 20.",
  },
] as const;

/** The limits given as flags, checked (a bad amount is a usage error). */
export function limitFlags(options: { maxCost?: unknown; maxSteps?: unknown }): RunLimits {
  const flags: RunLimits = {};
  if (options.maxCost !== undefined) flags.maxCostUsd = parseUsd(String(options.maxCost));
  if (typeof options.maxSteps === "number") flags.maxSteps = options.maxSteps;
  return flags;
}

function parseUsd(raw: string): number {
  const text = raw.trim().replace(/^\$/, "");
  const value = /^\d+(\.\d+)?$|^\.\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value > 0)) {
    throw new UwfError(
      "USAGE",
      `--max-cost: ${JSON.stringify(raw)} is not an amount of US dollars`,
      {
        hint: "Give a positive amount, e.g. --max-cost 2.50",
      },
    );
  }
  return value;
}
