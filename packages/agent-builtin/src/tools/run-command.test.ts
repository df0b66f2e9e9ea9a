import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  isProcessGone,
  type TempHome,
  tempHome,
  waitUntilGone,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CommandLimits, commandEnvironment, runCommandTool } from "./run-command.js";
import { Workspace } from "./workspace.js";

let temp: TempHome;
let ws: Workspace;
beforeEach(() => {
  temp = tempHome();
  ws = new Workspace(temp.home);
});
afterEach(() => temp.cleanup());

const node = process.execPath;
const limits = (overrides: Partial<CommandLimits> = {}): CommandLimits => ({
  timeoutMs: 30_000,
  maxBytes: 10_000,
  env: commandEnvironment(process.env),
  ...overrides,
});

/** A node program that starts a grandchild in its group, writes its pid, then `then`s. */
const spawnsGrandchild = (then: string) => [
  node,
  "-e",
  `const c = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
   require("fs").writeFileSync("grandchild.pid", String(c.pid)); ${then}`,
];

describe("run_command", () => {
  it("runs argv without a shell in the working directory and answers the exit code and output", async () => {
    const result = await runCommandTool(
      ws,
      {
        argv: [
          node,
          "-e",
          "console.log(process.cwd()); console.error(process.argv[1])",
          "$HOME && ls *",
        ],
      },
      limits(),
    );
    expect(result).toEqual({
      output: `exit code 0\n${temp.home}\n$HOME && ls *\n`,
      isError: false,
    });
  });

  it("reports a failing command as an error result", async () => {
    const result = await runCommandTool(ws, { argv: [node, "-e", "process.exit(3)"] }, limits());
    expect(result).toEqual({ output: "exit code 3\n(no output)", isError: true });
  });

  it("says when the program does not exist, or argv is not a list of strings", async () => {
    await expect(runCommandTool(ws, { argv: ["no-such-program-uwf"] }, limits())).rejects.toThrow(
      `program "no-such-program-uwf" not found on PATH`,
    );
    await expect(runCommandTool(ws, { argv: "git status" }, limits())).rejects.toThrow(
      `"argv" must be a non-empty array of strings`,
    );
  });

  it("keeps only the first bytes of a long output and counts the rest", async () => {
    const result = await runCommandTool(
      ws,
      { argv: [node, "-e", "process.stdout.write('x'.repeat(5000))"] },
      limits({ maxBytes: 100 }),
    );
    expect(result.output).toBe(
      `exit code 0\n${"x".repeat(100)}\n[… 4900 more bytes of output cut]`,
    );
  });

  it("kills a command that runs past its time limit", async () => {
    const result = await runCommandTool(ws, { argv: ["sleep", "60"] }, limits({ timeoutMs: 200 }));
    expect(result.isError).toBe(true);
    expect(result.output).toBe("killed after 0.2 s (the command's time limit)\n(no output)");
  });

  it("kills what the command leaves running in its process group", async () => {
    const result = await runCommandTool(
      ws,
      { argv: spawnsGrandchild("process.exit(0)") },
      limits(),
    );
    expect(result.output).toBe("exit code 0\n(no output)");
    const pid = Number(readFileSync(join(temp.home, "grandchild.pid"), "utf8"));
    expect(await waitUntilGone(pid, 30_000)).toBe(true);
  });

  it("kills the whole group when the step is aborted", async () => {
    const controller = new AbortController();
    const running = runCommandTool(
      ws,
      { argv: spawnsGrandchild("setInterval(() => {}, 1000)") },
      limits({ signal: controller.signal }),
    );
    const pidFile = join(temp.home, "grandchild.pid");
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8") === "") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isProcessGone(pid)).toBe(false);
    controller.abort();
    const result = await running;
    expect(result.output).toBe("killed by SIGTERM\n(no output)");
    expect(await waitUntilGone(pid, 30_000)).toBe(true);
  });

  it("gives the command a minimal environment: no keys from the adapter's", () => {
    const env = commandEnvironment({
      PATH: "/bin",
      HOME: "/h",
      OPENAI_API_KEY: "sk-secret",
      UWF_HOME: "/h/.uwf",
      LANG: "C",
      TZ: "UTC",
    });
    expect(env).toEqual({
      PATH: "/bin",
      HOME: "/h",
      LANG: "C",
      TZ: "UTC",
      TERM: "dumb",
      NO_COLOR: "1",
    });
  });
});
