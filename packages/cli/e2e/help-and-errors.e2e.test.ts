import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { type Sandbox, sandbox, uwf } from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

describe("uwf help <words>", () => {
  it("prints a command's help, a group's, or the program's, on stdout with exit 0", async () => {
    const exec = await uwf(sb, ["help", "thread", "exec"]);
    expect(exec.code).toBe(0);
    // The thread is optional: `thread exec --next` claims one.
    expect(exec.stdout).toMatch(/^Usage: uwf thread exec \[options\] \[thread\]\n/);
    expect(exec.stdout).toContain("--count <n>");
    expect(exec.stdout).toBe((await uwf(sb, ["thread", "exec", "--help"])).stdout);
    const group = await uwf(sb, ["help", "thread"]);
    expect([group.code, group.stdout.split("\n")[0]]).toEqual([
      0,
      "Usage: uwf thread [options] [command]",
    ]);
    const all = await uwf(sb, ["help"]);
    expect([all.code, all.stdout.split("\n")[0]]).toEqual([0, "Usage: uwf [options] [command]"]);
  });

  it("refuses words that name no command (exit 2)", async () => {
    const result = await uwf(sb, ["help", "thread", "exce"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      [
        'error: no command "uwf thread exce"',
        "hint: `uwf --help` lists the commands, `uwf help <group>` a group's",
        "",
      ].join("\n"),
    );
  });
});

describe("shorthands and upstream names", () => {
  it("takes --json for --format json and ls for list", async () => {
    const json = await uwf(sb, ["workflow", "ls", "--json"]);
    expect([json.code, json.stdout]).toEqual([
      0,
      (await uwf(sb, ["workflow", "list", "--format", "json"])).stdout,
    ]);
    expect(JSON.parse(json.stdout)).toHaveProperty("workflows");
    const help = await uwf(sb, ["help", "thread"]);
    expect(help.stdout).toContain("list|ls [options]");
    expect((await uwf(sb, ["help"])).stdout).toContain("--json");
  });

  it("answers upstream's old command names with their replacement (exit 2)", async () => {
    const cases = [
      ["thread steps 01K", "uwf step list <thread>"],
      ["thread step 01K", "uwf thread exec <thread>"],
      ["thread step-details abc", "uwf step show <step>"],
      ["thread fork abc", "uwf step fork <step>"],
      ["thread kill 01K", "uwf thread stop <thread>"],
      ["thread running", "uwf thread list --status running"],
      ["workflow put w.yaml", "uwf workflow add <file>"],
      ["thread status 01K", "uwf thread show <thread>"],
    ];
    for (const [words, instead] of cases) {
      const result = await uwf(sb, words!.split(" "));
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `error: "uwf ${words!.split(" ").slice(0, 2).join(" ")}" is upstream united-workforce's name for \`${instead}\``,
      );
      expect(result.stderr).not.toContain("Did you mean");
    }
    const kill = await uwf(sb, ["thread", "kill", "01K", "--json"]);
    expect(JSON.parse(kill.stderr).error.hint).toContain("uwf thread cancel <thread>");
  });
});

describe("errors under --format json|yaml", () => {
  it("are the error document on stderr, in the format asked for, with the exit code", async () => {
    const missing = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    const json = await uwf(sb, ["thread", "show", missing, "--format", "json"]);
    const yaml = await uwf(sb, ["thread", "show", missing, "--format", "yaml"]);
    for (const result of [json, yaml]) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
    }
    const expected = {
      error: {
        code: "THREAD_NOT_FOUND",
        message: `no thread ${missing}`,
        hint: "`uwf thread list` shows the threads",
        exitCode: 1,
        thread: missing,
      },
    };
    expect(JSON.parse(json.stderr)).toEqual(expected);
    expect(parseYaml(yaml.stderr)).toEqual(expected);
    // A usage error commander finds is shaped the same way.
    const usage = await uwf(sb, ["thread", "show", "--format", "yaml", "--bogus"]);
    expect(usage.code).toBe(2);
    expect(parseYaml(usage.stderr).error).toMatchObject({ code: "USAGE", exitCode: 2 });
  });
});
