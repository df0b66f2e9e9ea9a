import { join } from "node:path";
import { adapterConformance, REPO_ROOT } from "@united-workforce/test-utils";
import { describe, it } from "vitest";

// uwf-builtin talks to the model itself: the fake stands in for an OpenAI-compatible provider.
describe("uwf-builtin conformance against the fake model", () => {
  const cases = adapterConformance({
    command: join(REPO_ROOT, "packages/agent-builtin/bin/uwf-builtin.cjs"),
    noRetryArgs: ["--retries", "0"],
    provider: { api: "openai-chat", model: "fake-model" },
    writeFileTool: ({ path, content }) => ({ write_file: { path, content } }),
  });
  for (const c of cases) it.skipIf(c.skipped !== null)(c.title, c.run, c.timeoutMs);
});
