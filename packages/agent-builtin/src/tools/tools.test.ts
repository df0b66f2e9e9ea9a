import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { boundOutput } from "./bound.js";
import {
  describeCall,
  runTool,
  TOOL_NAMES,
  type ToolEnvironment,
  toolDefinitions,
} from "./tools.js";
import { Workspace } from "./workspace.js";

let temp: TempHome;
let env: ToolEnvironment;
beforeEach(() => {
  temp = tempHome();
  env = {
    workspace: new Workspace(temp.home),
    maxOutputBytes: 300,
    commandTimeoutMs: 30_000,
    commandEnv: { PATH: process.env.PATH ?? "" },
  };
});
afterEach(() => temp.cleanup());

describe("runTool", () => {
  it("runs a tool with JSON arguments", async () => {
    const outcome = await runTool("write_file", '{"path":"a.md","content":"hi"}', env, TOOL_NAMES);
    expect(outcome).toEqual({
      input: { path: "a.md", content: "hi" },
      output: "wrote 2 bytes to a.md",
      isError: false,
    });
    expect(readFileSync(join(temp.home, "a.md"), "utf8")).toBe("hi");
  });

  it("turns every failure into an error result for the model", async () => {
    expect(await runTool("read_file", "{not json", env, TOOL_NAMES)).toMatchObject({
      input: "{not json",
      output: expect.stringMatching(/^error: the arguments are not valid JSON/),
      isError: true,
    });
    expect(await runTool("delete_all", "{}", env, TOOL_NAMES)).toEqual({
      input: {},
      output: `error: there is no tool "delete_all"; the tools are: ${TOOL_NAMES.join(", ")}`,
      isError: true,
    });
    expect(
      await runTool("read_file", '{"path":"../../etc/passwd"}', env, TOOL_NAMES),
    ).toMatchObject({
      output: expect.stringContaining("is outside the working directory"),
      isError: true,
    });
  });

  it("refuses a tool that was not offered", async () => {
    const offered = TOOL_NAMES.filter((name) => name !== "run_command");
    const outcome = await runTool("run_command", '{"argv":["true"]}', env, offered);
    expect(outcome.output).toContain(`there is no tool "run_command"`);
    expect(toolDefinitions({ runCommand: false }).map((t) => t.function.name)).toEqual(offered);
  });

  it("bounds a result to the output limit", async () => {
    const outcome = await runTool(
      "write_file",
      JSON.stringify({ path: "big.txt", content: "y".repeat(1000) }),
      env,
      TOOL_NAMES,
    );
    expect(outcome.isError).toBe(false);
    const read = await runTool("read_file", '{"path":"big.txt"}', env, TOOL_NAMES);
    expect(read.output).toBe(
      `${"y".repeat(300)}\n[… 700 more bytes cut: ask for less, e.g. a line range or a narrower search]`,
    );
  });
});

describe("boundOutput", () => {
  it("never cuts inside a character", () => {
    expect(boundOutput("ééé", 3)).toBe(
      "é\n[… 4 more bytes cut: ask for less, e.g. a line range or a narrower search]",
    );
    expect(boundOutput("short", 10)).toBe("short");
  });
});

describe("describeCall", () => {
  it("is one short line naming the tool and what it touches", () => {
    expect(describeCall("run_command", { argv: ["git", "commit", "-m", "a\nb"] })).toBe(
      "run_command git commit -m a b",
    );
    expect(describeCall("write_file", { path: "src/x.ts", content: "…" })).toBe(
      "write_file src/x.ts",
    );
    expect(describeCall("search", { pattern: "TODO" })).toBe('search "TODO"');
    expect(describeCall("read_file", "not json")).toBe("read_file");
    expect(describeCall("write_file", { path: "\u001b[2Jx" })).toBe("write_file x");
  });
});
