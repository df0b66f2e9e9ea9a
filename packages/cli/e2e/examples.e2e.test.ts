import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ExecDoc,
  mockAgent,
  type Sandbox,
  sandbox,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

const EXAMPLES = join(REPO_ROOT, "examples");
const workflows = readdirSync(EXAMPLES)
  .filter((name) => name.endsWith(".yaml"))
  .map((name) => name.slice(0, -".yaml".length))
  .sort();

/** The task each example's header comment suggests (`-p "…"` on its second line). */
function suggestedTask(name: string): string {
  const match = /-p "([^"]+)"/.exec(readFileSync(join(EXAMPLES, `${name}.yaml`), "utf8"));
  if (!match) throw new Error(`examples/${name}.yaml: its header shows no \`-p "<task>"\``);
  return match[1]!;
}

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

describe("every example runs as it is, with its mock scenario", () => {
  it("has a scenario for each workflow, and nothing else", () => {
    const scenarios = readdirSync(join(EXAMPLES, "scenarios"))
      .map((name) => name.replace(/\.yaml$/, ""))
      .sort();
    expect(scenarios).toEqual(workflows);
  });

  it.each(workflows)("%s completes with its scenario", async (name) => {
    await uwfJson(sb, ["workflow", "add", join(EXAMPLES, `${name}.yaml`)]);
    const { thread } = await uwfJson<{ thread: string }>(sb, [
      "thread",
      "start",
      name,
      "-p",
      suggestedTask(name),
    ]);
    const exec = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread,
      "-c",
      "20",
      "--agent",
      mockAgent(join(EXAMPLES, "scenarios", `${name}.yaml`)),
    ]);
    expect([exec.status, exec.stoppedBecause]).toEqual(["completed", "completed"]);
    const scenarioSteps = readFileSync(join(EXAMPLES, "scenarios", `${name}.yaml`), "utf8").match(
      /^ {2}- role: /gm,
    );
    // Every scripted answer is used: the scenario and the workflow agree step by step.
    expect(exec.steps).toHaveLength(scenarioSteps!.length);
  });

  it("runs the README's demo and its bigger one by copy and paste", () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const demo = blocks.find((block) => block.includes("examples/scenarios/hello.yaml"));
    const bigger = blocks.find((block) => block.includes("examples/scenarios/solve-issue.yaml"));
    expect(demo).toBeDefined();
    expect(bigger).toBeDefined();
    // The demo's own first line makes a temp UWF_HOME; this test's sandbox is used instead.
    const script = [
      "set -e",
      demo!.replace(/UWF_HOME=\$\(mktemp -d\)/, `UWF_HOME=${JSON.stringify(sb.home)}`),
      bigger!,
      'uwf thread show "$id" --format json',
    ].join("\n");
    const out = execFileSync("bash", ["--norc", "--noprofile", "-c", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
      env: { ...process.env, UWF_HOME: sb.home },
    });
    const show = JSON.parse(out.slice(out.lastIndexOf("\n{\n") + 1)) as { status: string };
    expect(show.status).toBe("completed");
    expect(out).toContain("committer → committed");
  });
});
