import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  openHomeStore,
  REPO_ROOT,
  runBin,
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

let temp: TempHome;
beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, "packages/agent-mock/dist/main.js"))) {
    throw new Error(
      "packages/agent-mock/dist is missing: run `pnpm build` (or `npx tsc -b packages/agent-mock`) first",
    );
  }
});
beforeEach(async () => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

describe("the uwf-mock binary", () => {
  it("runs a scripted step as a real process and prints the JSON line last", async () => {
    const { thread, schemas } = await seedThread(temp.home, {
      workflow: {
        name: "one",
        roles: {
          solo: {
            frontmatter: {
              type: "object",
              properties: { $status: { const: "done" }, note: { type: "string" } },
              required: ["$status", "note"],
            },
          },
        },
        graph: {
          $START: { new: { role: "solo", prompt: "Go." }, resume: { role: "solo", prompt: "Go." } },
          solo: { done: { role: "$END", prompt: "Done." } },
        },
      },
      prompt: "Say hi",
      cwd: temp.home,
    });
    writeScenario(temp.home, [
      { role: "solo", output: { $status: "done", note: "hi" }, stderr: "working…" },
    ]);
    const result = await runBin(
      UWF_MOCK_BIN,
      ["--scenario", "scenario.yaml", "--thread", thread, "--role", "solo", "--prompt", "Go."],
      { cwd: temp.home, env: { UWF_HOME: temp.home, HOME: temp.home } },
    );
    expect(result.stderr).toBe("working…\n");
    expect(result.code).toBe(0);
    const last = JSON.parse(result.stdout.trimEnd().split("\n").at(-1)!) as { stepHash: string };
    expect(last).toEqual({
      stepHash: expect.any(String),
      role: "solo",
      status: "done",
      attempts: 1,
    });
    const cas = (await openHomeStore(temp.home)).cas;
    const step = await cas.getPayload<{ output: string }>(last.stepHash, "step");
    expect(await cas.get(step.output)).toEqual({
      type: schemas.solo,
      payload: { $status: "done", note: "hi" },
    });
  });

  it("prints its version for --version and -V, as every adapter does, and uwf-replay too", async () => {
    const { version } = JSON.parse(
      readFileSync(join(REPO_ROOT, "packages/agent-mock/package.json"), "utf8"),
    ) as { version: string };
    const replay = join(REPO_ROOT, "packages/agent-mock/bin/uwf-replay.cjs");
    for (const [bin, flag] of [
      [UWF_MOCK_BIN, "--version"],
      [UWF_MOCK_BIN, "-V"],
      [replay, "--version"],
    ] as const) {
      const result = await runBin(bin, [flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
  });

  it("is on PATH after install", async () => {
    expect(existsSync(join(REPO_ROOT, "node_modules/.bin/uwf-mock"))).toBe(true);
  });
});
