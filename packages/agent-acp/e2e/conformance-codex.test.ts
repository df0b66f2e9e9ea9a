import { join } from "node:path";
import {
  adapterConformance,
  agentCliPath,
  CODEX_USAGE_LIMIT,
  codexWriteFileTool,
  REPO_ROOT,
} from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned Codex ACP agent (@agentclientprotocol/codex-acp 2.6.0, with the codex 0.166
// it depends on), only its model replaced.
const codexAcp = agentCliPath("codex-acp");

describe("uwf-acp --preset codex conformance against the real codex-acp", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-acp/bin/uwf-acp.cjs"),
    args: ["--preset", "codex"],
    provider: { api: "openai-responses", model: "gpt-5.5" },
    writeFileTool: codexWriteFileTool,
    env: () => ({ UWF_ACP_BIN: codexAcp }),
    timeoutMs: 60_000,
    skip: {
      "http-500":
        'codex reports any HTTP 500 only as "We\'re currently experiencing high demand", without the ' +
        "status or the provider's message, which the case looks for in the reason; the step is " +
        "suspended as a transient failure (acp-agent.test.ts covers the line)",
    },
    // As for uwf-codex: codex passes on a usage limit's wait, not a 429's Retry-After.
    transient: CODEX_USAGE_LIMIT,
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
