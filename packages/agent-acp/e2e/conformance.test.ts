import { join } from "node:path";
import { adapterConformance, agentCliPath, REPO_ROOT } from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned gemini-cli (0.61.0) as an ACP agent (`gemini --acp`), only its model replaced.
const gemini = agentCliPath("gemini");

const SAME_MINUTE =
  "gemini-cli 0.61 cannot session/load a session in the minute it was made, so a role revisited " +
  "seconds later gets a new session (uwf-acp says so); the load itself is proven in " +
  "gemini-session-load.e2e.test.ts and the fallback in gemini.e2e.test.ts";

describe("uwf-acp --preset gemini conformance against the real gemini --acp", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-acp/bin/uwf-acp.cjs"),
    // Retries are off through the preset's settings (general.maxAttempts: 1) for a model alias.
    args: ["--preset", "gemini"],
    provider: { api: "gemini", model: "gemini-2.5-flash" },
    baseUrl: (fake) => fake.url,
    writeFileTool: ({ path, content }) => ({ write_file: { file_path: path, content } }),
    env: () => ({ UWF_ACP_BIN: gemini }),
    // Gemini takes seconds to start; the hung case needs room for that before its timeout.
    timeoutMs: 60_000,
    hungTimeoutSeconds: 15,
    skip: {
      "full-workflow": SAME_MINUTE,
      "resume-session": SAME_MINUTE,
      usage: `shares the full workflow's run; usage is checked in gemini.e2e.test.ts`,
    },
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
