import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  openHomeStore,
  REPO_ROOT,
  runBin,
  runUwf,
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

  it("scripts a fan-out by role and item: no entry for the join, one child answered apart", async () => {
    const scenario = join(temp.home, "review.yaml");
    writeFileSync(
      scenario,
      [
        "roles:",
        "  planner:",
        "    output:",
        "      $status: planned",
        "      files: [{ path: a.ts, why: one }, { path: b.ts, why: two }, { path: c.ts, why: three }]",
        "  reviewer: { output: { $status: approved, summary: fine } }",
        "  reviewer[1]: { output: { $status: changes, summary: fix b.ts } }",
        "  summariser: { output: { $status: reported, headline: one fix } }",
        "",
      ].join("\n"),
    );
    const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });
    const workflow = join(REPO_ROOT, "examples/fan-out-review.yaml");
    const thread = (await uwf("thread", "start", workflow, "-p", "Review")).stdout.trim();
    const run = await uwf(
      "thread",
      "exec",
      thread,
      "-c",
      "5",
      "--agent",
      `uwf-mock --scenario ${scenario}`,
    );
    expect(run.code, run.stderr).toBe(0);
    const list = JSON.parse((await uwf("thread", "list", "--format", "json")).stdout) as {
      threads: { thread: string; parent?: string }[];
    };
    const verdicts: Record<number, string> = {};
    for (const child of list.threads.filter((t) => t.parent === thread)) {
      const show = JSON.parse(
        (await uwf("thread", "show", child.thread, "--format", "json")).stdout,
      );
      const steps = JSON.parse(
        (await uwf("step", "list", child.thread, "--format", "json")).stdout,
      );
      verdicts[show.parent.index] = steps.steps[0].status;
    }
    expect(verdicts).toEqual({ 0: "approved", 1: "changes", 2: "approved" });
    const parent = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout);
    expect(parent.steps.map((s: { role: string }) => s.role)).toEqual([
      "planner",
      "collect",
      "summariser",
    ]);
  });

  it("is on PATH after install", async () => {
    expect(existsSync(join(REPO_ROOT, "node_modules/.bin/uwf-mock"))).toBe(true);
  });
});
