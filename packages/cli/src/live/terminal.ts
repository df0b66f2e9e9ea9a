/**
 * How progress is shown:
 * - `live`: one status line per running step, redrawn in place, then a final line per step;
 * - `lines`: one plain timestamped line per event, nothing redrawn, no escape codes (CI logs,
 *   pipes, files, dumb terminals);
 * - `quiet`: nothing but an agent's failure (`--quiet`: the result says the rest).
 */
export type ProgressMode = "live" | "lines" | "quiet";

export interface ProgressStyle {
  mode: ProgressMode;
  /** Colour codes: only on a live terminal, never with NO_COLOR or a json/yaml result. */
  color: boolean;
}

export interface TerminalFacts {
  /** The width of stderr when it is a terminal, else undefined. */
  columns: number | undefined;
  env: Record<string, string | undefined>;
  format: "text" | "json" | "yaml";
  quiet: boolean;
}

/**
 * uwf decides this itself rather than leave it to a spinner library: some spin forever on a
 * pty with no size, some ignore TERM=dumb or CI, some write cursor codes into a pipe (see
 * docs/decisions/live-progress.md). A line is redrawn only when stderr is a terminal that
 * has a width, TERM is not `dumb` and no CI variable is set.
 */
export function progressStyle(facts: TerminalFacts): ProgressStyle {
  if (facts.quiet) return { mode: "quiet", color: false };
  const { env } = facts;
  const live =
    facts.columns !== undefined &&
    facts.columns > 0 &&
    env.TERM !== "dumb" &&
    !isSet(env.CI) &&
    !isSet(env.CONTINUOUS_INTEGRATION);
  if (!live) return { mode: "lines", color: false };
  // no-color.org: any non-empty NO_COLOR turns colour off.
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return { mode: "live", color: !noColor && facts.format === "text" };
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}
