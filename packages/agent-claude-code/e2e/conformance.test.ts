import { join } from "node:path";
import { adapterConformance, agentCliPath, REPO_ROOT } from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned claude (2.1.197) against the fake model: only the model is replaced.
const claude = agentCliPath("claude");

describe("uwf-claude-code conformance against the real claude CLI", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-claude-code/bin/uwf-claude-code.cjs"),
    noRetryArgs: ["--max-retries", "0"],
    provider: { api: "anthropic", model: "claude-fake" },
    baseUrl: (fake) => fake.url,
    writeFileTool: ({ path, content }) => ({ Write: { file_path: path, content } }),
    env: () => ({ UWF_CLAUDE_BIN: claude }),
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
