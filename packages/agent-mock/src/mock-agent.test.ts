import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepPayload } from "@united-workforce/protocol";
import {
  appendStep,
  openHomeStore,
  type SeededThread,
  seedThread,
  type TempHome,
  tempHome,
  type WorkflowFixture,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mockAgent } from "./mock-agent.js";

const workflow: WorkflowFixture = {
  name: "write-review",
  roles: {
    writer: {
      goal: "Write.",
      frontmatter: {
        type: "object",
        properties: { $status: { const: "done" }, title: { type: "string" } },
        required: ["$status", "title"],
      },
    },
    reviewer: {
      frontmatter: {
        type: "object",
        properties: { $status: { enum: ["approved", "rejected"] } },
        required: ["$status"],
      },
    },
  },
  graph: {
    $START: {
      new: { role: "writer", prompt: "Write." },
      resume: { role: "writer", prompt: "Again." },
    },
    writer: { done: { role: "reviewer", prompt: "Review {{{title}}}." } },
    reviewer: {
      approved: { role: "$END", prompt: "Done." },
      rejected: { role: "writer", prompt: "Rewrite." },
    },
  },
};

let temp: TempHome;
let seeded: SeededThread;
beforeEach(async () => {
  temp = tempHome();
  seeded = await seedThread(temp.home, { workflow, prompt: "Write a haiku", cwd: temp.home });
});
afterEach(() => temp.cleanup());

async function mock(
  role: string,
  options: {
    scenario?: string;
    env?: Record<string, string>;
    cwd?: string;
    signal?: AbortSignal;
    args?: string[];
  } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const argv = ["--thread", seeded.thread, "--role", role, "--prompt", "Go."];
  if (options.scenario) argv.push("--scenario", options.scenario);
  argv.push(...(options.args ?? []));
  const code = await mockAgent(argv, {
    env: { UWF_HOME: temp.home, ...options.env },
    cwd: options.cwd ?? temp.home,
    ...(options.signal ? { signal: options.signal } : {}),
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

async function stepOf(stdout: string): Promise<StepPayload> {
  const { stepHash } = JSON.parse(stdout.trimEnd().split("\n").at(-1)!) as { stepHash: string };
  return await (await openHomeStore(temp.home)).cas.getPayload<StepPayload>(stepHash, "step");
}

describe("uwf-mock", () => {
  it("replays the step whose index is the number of steps in the chain", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "done", title: "Autumn" }, body: "Leaves fall." },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const first = await mock("writer", { scenario });
    expect(first.code).toBe(0);
    const cas = (await openHomeStore(temp.home)).cas;
    const step = await stepOf(first.stdout);
    expect((await cas.get(step.output)).payload).toEqual({ $status: "done", title: "Autumn" });
    expect(await cas.getText(step.body)).toBe("Leaves fall.");
    expect(step.agent).toBe("uwf-mock");

    await appendStep(temp.home, seeded.thread, {
      role: "writer",
      output: { $status: "done", title: "Autumn" },
    });
    const second = await mock("reviewer", { scenario });
    expect(JSON.parse(second.stdout)).toMatchObject({
      role: "reviewer",
      status: "approved",
      attempts: 1,
    });
  });

  it("errors with exit 1 naming both roles on a mismatch", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "done", title: "t" } },
    ]);
    const result = await mock("reviewer", { scenario });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      'step 1 is for role "writer", but uwf asked for role "reviewer"',
    );
  });

  it("answers a fan-out child's role from `children` when `steps` scripts another role there", async () => {
    const scenario = join(temp.home, "fanout.yaml");
    writeFileSync(
      scenario,
      [
        "steps:",
        "  - { role: writer, output: { $status: done, title: Parent } }",
        "children:",
        "  - { role: reviewer, output: { $status: approved } }",
        "",
      ].join("\n"),
    );
    expect(JSON.parse((await mock("reviewer", { scenario })).stdout)).toMatchObject({
      role: "reviewer",
      status: "approved",
    });
    // The thread's own entry wins for its role.
    expect(JSON.parse((await mock("writer", { scenario })).stdout)).toMatchObject({
      role: "writer",
      status: "done",
    });
  });

  it("answers by role under `roles`: one entry every visit, a list visit by visit", async () => {
    const scenario = join(temp.home, "by-role.yaml");
    writeFileSync(
      scenario,
      [
        "roles:",
        "  writer:",
        "    - { output: { $status: done, title: First } }",
        "    - { output: { $status: done, title: Second } }",
        "  reviewer: { output: { $status: rejected } }",
        "",
      ].join("\n"),
    );
    const cas = (await openHomeStore(temp.home)).cas;
    const titleOf = async (stdout: string) =>
      (await cas.getPayload<{ title: string }>((await stepOf(stdout)).output)).title;
    expect(await titleOf((await mock("writer", { scenario })).stdout)).toBe("First");
    await appendStep(temp.home, seeded.thread, {
      role: "writer",
      output: { $status: "done", title: "First" },
    });
    for (let i = 0; i < 2; i++) {
      const review = await mock("reviewer", { scenario });
      expect(JSON.parse(review.stdout)).toMatchObject({ role: "reviewer", status: "rejected" });
      await appendStep(temp.home, seeded.thread, {
        role: "reviewer",
        output: { $status: "rejected" },
      });
    }
    // The writer's second visit, after two reviewer steps: its second entry.
    expect(await titleOf((await mock("writer", { scenario })).stdout)).toBe("Second");
    await appendStep(temp.home, seeded.thread, {
      role: "writer",
      output: { $status: "done", title: "Second" },
    });
    const third = await mock("writer", { scenario });
    expect(third.code).toBe(1);
    expect(third.stderr).toContain(
      'has 2 entries under roles.writer, but this is visit 3 of role "writer" in the thread',
    );
  });

  it("takes a positional entry of the role first, then `roles` for the others", async () => {
    const scenario = join(temp.home, "mixed.yaml");
    writeFileSync(
      scenario,
      [
        "steps:",
        "  - { role: writer, output: { $status: done, title: Positional } }",
        "  - { role: gate, output: { $status: done } } # a placeholder for another role",
        "roles:",
        "  reviewer: { output: { $status: approved } }",
        "  writer: { role: reviewer, output: { $status: done, title: x } }",
        "",
      ].join("\n"),
    );
    const bad = await mock("writer", { scenario });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'roles.writer.role is "reviewer", but its key names role "writer"',
    );
    writeFileSync(scenario, readFileSync(scenario, "utf8").replace(/ {2}writer: \{ role.*\n/, ""));
    const cas = (await openHomeStore(temp.home)).cas;
    const first = await stepOf((await mock("writer", { scenario })).stdout);
    expect(await cas.getPayload(first.output)).toEqual({ $status: "done", title: "Positional" });
    await appendStep(temp.home, seeded.thread, {
      role: "writer",
      output: { $status: "done", title: "Positional" },
    });
    // Step 2's entry is for another role: the reviewer answers from `roles`.
    const review = await mock("reviewer", { scenario });
    expect(JSON.parse(review.stdout)).toMatchObject({ role: "reviewer", status: "approved" });
  });

  it("errors clearly when the scenario has no step for this index", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "done", title: "t" } },
    ]);
    await appendStep(temp.home, seeded.thread, {
      role: "writer",
      output: { $status: "done", title: "t" },
    });
    const result = await mock("reviewer", { scenario });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "has 1 step, but the thread already has 1: nothing is scripted for step 2",
    );
  });

  it("scripts successive answers for repairs", async () => {
    const scenario = writeScenario(temp.home, [
      {
        role: "writer",
        body: "Body.",
        attempts: [
          "Just prose, no frontmatter.",
          { $status: "done" },
          { $status: "done", title: "Third time" },
        ],
      },
    ]);
    const result = await mock("writer", { scenario });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ attempts: 3 });
    const cas = (await openHomeStore(temp.home)).cas;
    const step = await stepOf(result.stdout);
    expect((await cas.get(step.output)).payload).toEqual({ $status: "done", title: "Third time" });
    const detail = await cas.getPayload<{ attempts: { rawOutput: string }[]; model: string }>(
      step.detail,
      "stepDetail",
    );
    expect(detail.model).toBe("mock");
    expect(detail.attempts.map((a) => a.rawOutput)).toEqual([
      "Just prose, no frontmatter.",
      "---\n$status: done\n---\nBody.",
      "---\n$status: done\ntitle: Third time\n---\nBody.",
    ]);
  });

  it("prints raw stdout instead of a step, and exits with the scripted code", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", stdout: "not json\n", stderr: "progress line", exit: 0 },
    ]);
    const result = await mock("writer", { scenario });
    expect(result).toEqual({ code: 0, stdout: "not json\n", stderr: "progress line\n" });
  });

  it("exits with a scripted code and no step", async () => {
    const scenario = writeScenario(temp.home, [{ role: "writer", exit: 42 }]);
    expect(await mock("writer", { scenario })).toEqual({ code: 42, stdout: "", stderr: "" });
  });

  it("sleeps delay_ms before answering", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", delay_ms: 150, output: { $status: "done", title: "t" } },
    ]);
    const started = Date.now();
    expect((await mock("writer", { scenario })).code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("holds its answer until the wait_for file exists, next to the scenario", async () => {
    const dir = join(temp.home, "scenarios");
    mkdirSync(dir);
    const scenario = writeScenario(dir, [
      { role: "writer", wait_for: "gate", output: { $status: "done", title: "t" } },
    ]);
    // A gate that never opens: only the interrupt ends the step, and no step is stored.
    const controller = new AbortController();
    const held = mock("writer", { scenario, signal: controller.signal });
    controller.abort();
    expect(await held).toMatchObject({ code: 130, stdout: "", stderr: "uwf-mock: interrupted\n" });

    const answered = mock("writer", { scenario });
    writeFileSync(join(dir, "gate"), "");
    const result = await answered;
    expect(result.code, result.stderr).toBe(0);
    expect((await stepOf(result.stdout)).role).toBe("writer");
  });

  it("reports scripted usage", async () => {
    const scenario = writeScenario(temp.home, [
      {
        role: "writer",
        output: { $status: "done", title: "t" },
        usage: { inputTokens: 12, costUsd: 0.01 },
      },
    ]);
    const step = await stepOf((await mock("writer", { scenario })).stdout);
    expect(step.usage).toMatchObject({ inputTokens: 12, costUsd: 0.01, outputTokens: null });
  });

  it("resolves a relative path against the cwd and falls back to UWF_MOCK_SCENARIO", async () => {
    const dir = join(temp.home, "work");
    mkdirSync(dir);
    writeScenario(dir, [{ role: "writer", output: { $status: "done", title: "t" } }], "s.json");
    expect((await mock("writer", { scenario: "s.json", cwd: dir })).code).toBe(0);
    expect((await mock("writer", { env: { UWF_MOCK_SCENARIO: "s.json" }, cwd: dir })).code).toBe(0);
    const missing = await mock("writer");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'missing required option "--scenario" (or set UWF_MOCK_SCENARIO)',
    );
  });

  it("takes --mock-data, upstream's name for --scenario, over UWF_MOCK_SCENARIO", async () => {
    const dir = join(temp.home, "work");
    mkdirSync(dir);
    writeScenario(dir, [{ role: "writer", output: { $status: "done", title: "t" } }], "s.json");
    const env = { UWF_MOCK_SCENARIO: "missing.json" };
    const given = await mock("writer", { args: ["--mock-data", "s.json"], env, cwd: dir });
    expect(given.code, given.stderr).toBe(0);
    const both = await mock("writer", { scenario: "s.json", args: ["--mock-data", "t.json"] });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--scenario s.json and --mock-data t.json name two files");
  });

  it("reads JSON scenarios and names the file and step of a bad one", async () => {
    const json = join(temp.home, "s.json");
    writeFileSync(
      json,
      JSON.stringify({ steps: [{ role: "writer", output: { $status: "done", title: "j" } }] }),
    );
    expect((await mock("writer", { scenario: json })).code).toBe(0);
    writeFileSync(json, JSON.stringify({ steps: [{ role: "writer", ouput: {} }] }));
    const bad = await mock("writer", { scenario: json });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`scenario ${json} is invalid: steps[0] has unknown key "ouput"`);
    expect(bad.stderr).toContain('steps[0] needs "output", "attempts", "stdout" or "exit"');
  });

  it("takes the raw reply text as output, extracted like any agent's answer", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: "---\n$status: done\ntitle: Raw\n---\nA raw body." },
    ]);
    const result = await mock("writer", { scenario });
    expect(result.code, result.stderr).toBe(0);
    const cas = (await openHomeStore(temp.home)).cas;
    const step = await stepOf(result.stdout);
    expect((await cas.get(step.output)).payload).toEqual({ $status: "done", title: "Raw" });
    expect(await cas.getText(step.body)).toBe("A raw body.");
  });

  it("sends invalid raw text through the normal repair, and fails closed keeping it", async () => {
    const scenario = writeScenario(temp.home, [{ role: "writer", output: "Sorry, no YAML." }]);
    const result = await mock("writer", { scenario });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('the output for role "writer" is invalid after 3 attempts');
    const detailHash = /detail node ([0-9A-Z]{13})/.exec(result.stderr)?.[1];
    const cas = (await openHomeStore(temp.home)).cas;
    const detail = await cas.getPayload<{ attempts: { rawOutput: string }[] }>(
      detailHash!,
      "stepDetail",
    );
    expect(detail.attempts.map((a) => a.rawOutput)).toEqual(Array(3).fill("Sorry, no YAML."));
  });

  it("refuses a body beside a raw output, which holds its own body", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: "---\n$status: done\n---\n", body: "lost" },
    ]);
    const result = await mock("writer", { scenario });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "steps[0].body goes with a mapping output; a raw output holds its own body",
    );
  });

  it("records the model uwf passed with --model", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "done", title: "t" } },
    ]);
    const step = await stepOf(
      (await mock("writer", { scenario, args: ["--model", "fast"] })).stdout,
    );
    const cas = (await openHomeStore(temp.home)).cas;
    expect((await cas.getPayload<{ model: string }>(step.detail, "stepDetail")).model).toBe("fast");
  });

  it("replaces the head with --replace-head: the step follows the head's predecessor", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "done", title: "Second try" } },
    ]);
    const old = await appendStep(temp.home, seeded.thread, {
      role: "writer",
      output: { $status: "done", title: "First try" },
    });
    const result = await mock("writer", { scenario, args: ["--replace-head"] });
    expect(result.code, result.stderr).toBe(0);
    const step = await stepOf(result.stdout);
    expect(step.prev).toBeNull();
    expect(step.start).toBe(seeded.start);
    expect(old).not.toBe(JSON.parse(result.stdout).stepHash);
  });
});
