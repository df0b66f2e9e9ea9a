import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { adapterConformance, agentCliPath, REPO_ROOT } from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned codex (0.169.0) against the fake model: only the model is replaced. The
// adapter turns codex's retries off itself whenever it is given a model alias.
const codex = agentCliPath("codex");

describe("uwf-codex conformance against the real codex CLI", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-codex/bin/uwf-codex.cjs"),
    provider: { api: "openai-responses", model: "gpt-5.5" },
    writeFileTool: ({ path, content }) => ({
      apply_patch: `*** Begin Patch\n*** Add File: ${path}\n${content
        .split("\n")
        .slice(0, -1)
        .map((line) => `+${line}`)
        .join("\n")}\n*** End Patch\n`,
    }),
    prepare: (sb) => mkdirSync(join(sb.agent.home, ".codex")),
    env: (sb) => ({ UWF_CODEX_BIN: codex, CODEX_HOME: join(sb.agent.home, ".codex") }),
    // Codex drops a 429's Retry-After and message; a usage limit it reports with its reset
    // time of day ("try again at 6:05 AM"), to the minute. Five minutes on, so that the wait
    // read back from a time cut to the minute stays above the case's maxDelaySeconds (30 s):
    // 90 s, read at the end of a minute on a loaded machine, could come back as 29 s, which
    // uwf then waits out and retries, past the case's timeout.
    transient: {
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
    },
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
