import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  adapterConformance,
  agentCliPath,
  CODEX_USAGE_LIMIT,
  codexWriteFileTool,
  REPO_ROOT,
} from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned codex (0.169.0) against the fake model: only the model is replaced. The
// adapter turns codex's retries off itself whenever it is given a model alias.
const codex = agentCliPath("codex");

describe("uwf-codex conformance against the real codex CLI", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-codex/bin/uwf-codex.cjs"),
    provider: { api: "openai-responses", model: "gpt-5.5" },
    writeFileTool: codexWriteFileTool,
    prepare: (sb) => mkdirSync(join(sb.agent.home, ".codex")),
    env: (sb) => ({ UWF_CODEX_BIN: codex, CODEX_HOME: join(sb.agent.home, ".codex") }),
    transient: CODEX_USAGE_LIMIT,
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
