import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  isProcessGone,
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  waitUntilGone,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Runs the built bin (createAgent's parent watch is what is under test), like CI after build.
describe("an adapter whose uwf was killed", () => {
  let temp: TempHome;
  let adapterPid: number | undefined;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => {
    // A failed test must not leave an adapter sleeping for ten minutes.
    if (adapterPid !== undefined && !isProcessGone(adapterPid)) process.kill(adapterPid, "SIGKILL");
    adapterPid = undefined;
    temp.cleanup();
  });

  it("stops by itself instead of working for nobody", async () => {
    const { thread } = await seedThread(temp.home, {
      workflow: {
        name: "solo",
        roles: {
          worker: {
            frontmatter: {
              type: "object",
              properties: { $status: { const: "done" } },
              required: ["$status"],
            },
          },
        },
        graph: {
          $START: {
            new: { role: "worker", prompt: "Go." },
            resume: { role: "worker", prompt: "Go." },
          },
          worker: { done: { role: "$END", prompt: "Done." } },
        },
      },
      prompt: "Work",
      cwd: temp.home,
    });
    const scenario = writeScenario(temp.home, [
      // Far longer than the test waits: only the watch can end this step.
      { role: "worker", delay_ms: 600_000, output: { $status: "done" } },
    ]);
    const stderrFile = join(temp.home, "adapter.stderr");
    // A stand-in for uwf: it starts the adapter in its own group, naming itself in
    // UWF_ADAPTER_PARENT_PID as uwf does, prints the adapter's pid, then waits to be killed.
    const launcher = `
      const { openSync } = require("node:fs");
      const { spawn } = require("node:child_process");
      const child = spawn(process.execPath, ${JSON.stringify([UWF_MOCK_BIN, "--scenario", scenario, "--thread", thread, "--role", "worker", "--prompt", "Go."])}, {
        detached: true,
        stdio: ["ignore", "ignore", openSync(${JSON.stringify(stderrFile)}, "w")],
        env: { ...process.env, UWF_HOME: ${JSON.stringify(temp.home)}, UWF_ADAPTER_PARENT_PID: String(process.pid) },
      });
      console.log(child.pid);
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ["-e", launcher], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    adapterPid = await new Promise<number>((resolve) =>
      parent.stdout.once("data", (chunk) => resolve(Number(String(chunk).trim()))),
    );
    // Killed at once: the adapter may not even have started Node yet, let alone its watch.
    parent.kill("SIGKILL");

    // A generous deadline: it only fails an adapter that never notices.
    expect(await waitUntilGone(adapterPid, 20_000)).toBe(true);
    expect(readFileSync(stderrFile, "utf8")).toBe("uwf-mock: interrupted\n");
  });
});
