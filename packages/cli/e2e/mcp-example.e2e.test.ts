import { join } from "node:path";
import { REPO_ROOT, runBin, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// docs/mcp.md's runnable example: a client with no SDK and no model drives `uwf mcp` (found on
// PATH, as after install) through a whole thread.
describe("examples/mcp/drive.mjs", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  it("lists the tools, starts examples/hello.yaml and runs it to completion", async () => {
    const run = await runBin(join(REPO_ROOT, "examples/mcp/drive.mjs"), [], {
      cwd: REPO_ROOT,
      env: { UWF_HOME: temp.home },
      timeoutMs: 60_000,
    });
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("tools: workflow_list, workflow_show, thread_start");
    expect(run.stdout).toMatch(/^started \w{26}$/m);
    expect(run.stdout).toMatch(/: completed after 1 step\(s\)$/m);
  });
});
