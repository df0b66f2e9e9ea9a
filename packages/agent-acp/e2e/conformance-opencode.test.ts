import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adapterConformance, agentCliPath, REPO_ROOT } from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// The real, pinned opencode (opencode-ai 1.18.33) as an ACP agent (`opencode acp`), only its
// model replaced. A model name without "gpt" in it: for those opencode offers `apply_patch`
// instead of its `write` tool.
const opencode = agentCliPath("opencode");

const RETRIES_ITS_OWN =
  "opencode retries an HTTP 429 or 5xx itself (2 s, doubling up to 30 s, or the wait the " +
  "response asks for), with no setting to turn that off: a rate limit is retried by opencode, " +
  "not by uwf, and a provider that keeps failing holds the step until opencode gives up or " +
  "the agent's timeoutSeconds";

describe("uwf-acp --preset opencode conformance against the real opencode acp", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-acp/bin/uwf-acp.cjs"),
    args: ["--preset", "opencode"],
    provider: { api: "openai-chat", model: "fake-model" },
    writeFileTool: ({ path, content }) => ({ write: { filePath: path, content } }),
    // opencode installs @opencode-ai/plugin from the npm registry into its config folder in the
    // background unless the folder already lists it: these stubs keep the tests off the network.
    prepare: (sb) => {
      const dir = join(sb.agent.home, ".config", "opencode");
      mkdirSync(join(dir, "node_modules"), { recursive: true });
      const dependencies = { "@opencode-ai/plugin": "*" };
      writeFileSync(join(dir, "package.json"), JSON.stringify({ dependencies }));
      writeFileSync(
        join(dir, "package-lock.json"),
        JSON.stringify({ lockfileVersion: 3, packages: { "": { dependencies } } }),
      );
    },
    env: () => ({ UWF_ACP_BIN: opencode }),
    timeoutMs: 60_000,
    // opencode takes 4–12 s from spawn to its first model request on a loaded 2-core machine
    // (research/agents-and-infra.md): the hung model must be reached before the step times out.
    hungTimeoutSeconds: 30,
    skip: {
      "http-500": RETRIES_ITS_OWN,
      "transient-retry": RETRIES_ITS_OWN,
      "transient-suspend": RETRIES_ITS_OWN,
    },
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
