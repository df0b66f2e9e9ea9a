import type { AdapterConformanceOptions } from "./options.js";

/**
 * What the conformance cases need of any codex-driven adapter (uwf-codex, `uwf-acp --preset
 * codex`): codex's own file tool, and a rate limit codex passes on with its wait.
 */

/** The fake's call of codex's `apply_patch` tool adding `path` with `content`. */
export const codexWriteFileTool: AdapterConformanceOptions["writeFileTool"] = ({
  path,
  content,
}) => ({
  apply_patch: `*** Begin Patch\n*** Add File: ${path}\n${content
    .split("\n")
    .slice(0, -1)
    .map((line) => `+${line}`)
    .join("\n")}\n*** End Patch\n`,
});

/**
 * Codex drops a 429's Retry-After and message; a usage limit it reports with its reset time of
 * day ("try again at 6:05 AM"), to the minute. Five minutes on, so that the wait read back from
 * a time cut to the minute stays above the case's maxDelaySeconds (30 s): 90 s, read at the end
 * of a minute on a loaded machine, could come back as 29 s, which uwf then waits out and
 * retries, past the case's timeout.
 */
export const CODEX_USAGE_LIMIT: NonNullable<AdapterConformanceOptions["transient"]> = {
  failure: () => ({
    status: 429,
    body: {
      error: {
        type: "usage_limit_reached",
        message: "The usage limit has been reached",
        plan_type: "plus",
        resets_in_seconds: 300,
        resets_at: Math.floor(Date.now() / 1000) + 300,
      },
    },
  }),
  waitSeconds: 300,
  toleranceSeconds: 61,
};
