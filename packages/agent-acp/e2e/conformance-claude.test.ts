import { join } from "node:path";
import { adapterConformance, agentCliPath, REPO_ROOT } from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned Claude Code ACP agent (@agentclientprotocol/claude-agent-acp 0.101.0, with
// the claude 2.1.318 its SDK bundles), only its model replaced. Unlike gemini-cli it loads a
// session made seconds earlier, so all eight cases run.
const claudeAcp = agentCliPath("claude-agent-acp");

describe("uwf-acp --preset claude conformance against the real claude-agent-acp", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-acp/bin/uwf-acp.cjs"),
    // Retries are off through the preset's environment (CLAUDE_CODE_MAX_RETRIES=0).
    args: ["--preset", "claude"],
    provider: { api: "anthropic", model: "claude-fake" },
    baseUrl: (fake) => fake.url,
    writeFileTool: ({ path, content }) => ({ Write: { file_path: path, content } }),
    env: () => ({ UWF_ACP_BIN: claudeAcp }),
    timeoutMs: 60_000,
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
