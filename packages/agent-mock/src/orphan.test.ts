import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  isProcessGone,
  seedThread,
  sleep,
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
  beforeEach(async () => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

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
      { role: "worker", delay_ms: 30_000, output: { $status: "done" } },
    ]);
    // A stand-in for uwf: it starts the adapter in its own group, prints its pid, then waits.
    const launcher = `
      const { spawn } = require("node:child_process");
      const child = spawn(process.execPath, ${JSON.stringify([UWF_MOCK_BIN, "--scenario", scenario, "--thread", thread, "--role", "worker", "--prompt", "Go."])}, { detached: true, stdio: "ignore", env: { ...process.env, UWF_HOME: ${JSON.stringify(temp.home)} } });
      console.log(child.pid);
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ["-e", launcher], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const adapterPid = await new Promise<number>((resolve) =>
      parent.stdout.once("data", (chunk) => resolve(Number(String(chunk).trim()))),
    );
    await sleep(800);
    expect(isProcessGone(adapterPid)).toBe(false);

    parent.kill("SIGKILL");
    expect(await waitUntilGone(adapterPid, 5000)).toBe(true);
  });
});
