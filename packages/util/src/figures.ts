import type { DiffStat, Usage, UsageTotal } from "@united-workforce/protocol";

// How uwf writes numbers for people: tokens, dollars and durations, the same way in every command,
// progress line and message. A cost nobody reported is never shown as $0: `$0` is a cost of
// zero (or of no steps at all), `unknown` is a cost no step reported, and `≥ $1.20 (2 steps
// unknown)` is a lower bound, what the reported costs add up to while some steps reported none.

/**
 * An integer with its thousands grouped, `12,345`: what `toLocaleString("en-US")` writes, without
 * it. Its first call loads ICU's number formatting, 11–18 ms, which an exec paid on the step
 * line of every agent that reports tokens. Anything but a safe integer goes to it.
 */
export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString("en-US");
  const digits = String(Math.abs(value));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3)
    grouped += `,${digits.slice(at, at + 3)}`;
  return value < 0 ? `-${grouped}` : grouped;
}

/**
 * An amount of US dollars: `$0`, four decimals under a dollar (`$0.0123`: cents would hide what a
 * step costs), two from a dollar on, thousands grouped (`$1,234.50`).
 */
export function usdText(usd: number): string {
  if (usd === 0) return "$0";
  if (Math.abs(usd) < 1) return `$${usd.toFixed(4)}`;
  const [whole, cents] = Math.abs(usd).toFixed(2).split(".");
  return `${usd < 0 ? "-" : ""}$${groupDigits(Number(whole))}.${cents}`;
}

/** What a cost is made of: the reported sum, how many steps it covers and how many reported none. */
export type CostTotal = Pick<UsageTotal, "costUsd" | "unknownCostSteps" | "steps">;

/**
 * A cost as a reader should take it, for a column headed "cost": `$0` for no steps, `unknown`
 * when no step reported one, `≥ $1.20 (2 steps unknown)` when some did not.
 */
export function costText(total: CostTotal): string {
  if (total.costUsd === null) return total.steps === 0 ? "$0" : "unknown";
  const usd = usdText(total.costUsd);
  if (total.unknownCostSteps === 0) return usd;
  const steps = total.unknownCostSteps === 1 ? "1 step" : `${total.unknownCostSteps} steps`;
  return `≥ ${usd} (${steps} unknown)`;
}

/** A cost among other facts (`12.3 s · … · cost unknown`): as `costText`, unknown says of what. */
export function costFact(total: CostTotal): string {
  const text = costText(total);
  return text === "unknown" ? "cost unknown" : text;
}

/** One step's usage as a total of one step, for `costText` and `costFact`. */
export function stepCost(usage: Pick<Usage, "costUsd"> | null): CostTotal {
  const costUsd = usage?.costUsd ?? null;
  return { costUsd, steps: 1, unknownCostSteps: costUsd === null ? 1 : 0 };
}

type Tokens = Pick<Usage, "inputTokens" | "outputTokens">;

/** `1,234 in / 56 out`, `?` for a side not reported, `?` alone when neither was: for a column. */
export function tokensText(usage: Tokens | null): string {
  const input = usage?.inputTokens ?? null;
  const output = usage?.outputTokens ?? null;
  if (input === null && output === null) return "?";
  const count = (value: number | null) => (value === null ? "?" : groupDigits(value));
  return `${count(input)} in / ${count(output)} out`;
}

/** Tokens among other facts: `1,234 in / 56 out tokens`, or `tokens unknown`. */
export function tokensFact(usage: Tokens | null): string {
  const text = tokensText(usage);
  return text === "?" ? "tokens unknown" : `${text} tokens`;
}

/**
 * What a step changed in its git working tree, as git's own summary says it:
 * `3 files changed, +12 −4`, `1 file changed, +1 −0`, `no files changed`.
 */
export function diffStatText(stat: Pick<DiffStat, "files" | "insertions" | "deletions">): string {
  if (stat.files === 0) return "no files changed";
  const files = stat.files === 1 ? "1 file" : `${groupDigits(stat.files)} files`;
  return `${files} changed, +${groupDigits(stat.insertions)} −${groupDigits(stat.deletions)}`;
}

/** A duration as a person reads it: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 10 min`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60)
    return `${minutes} min ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}
