import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { type TempHome, tempHome } from "./home.js";
import { runBin } from "./run.js";
import { writeScenario } from "./scenario.js";

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

describe("runBin", () => {
  it("runs a script with this node, passing stdin, env and cwd", async () => {
    const script = join(temp.home, "echo.mjs");
    writeFileSync(
      script,
      [
        "let input = '';",
        "process.stdin.on('data', (d) => (input += d));",
        "process.stdin.on('end', () => {",
        "  console.log(JSON.stringify({ input, cwd: process.cwd(), home: process.env.UWF_HOME ?? null }));",
        "  console.error('to stderr');",
        "  process.exitCode = 3;",
        "});",
      ].join("\n"),
    );
    const result = await runBin(script, [], {
      cwd: temp.home,
      input: "hello",
      env: { UWF_HOME: "/x" },
    });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({ input: "hello", cwd: temp.home, home: "/x" });
    expect(result.stderr).toBe("to stderr\n");
  });

  it("kills a process that runs past its timeout", async () => {
    const script = join(temp.home, "hang.mjs");
    writeFileSync(script, "setTimeout(() => {}, 60_000);\n");
    const result = await runBin(script, [], { timeoutMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
  });
});

describe("tempHome and writeScenario", () => {
  it("makes an empty directory and writes a YAML scenario in it", () => {
    const path = writeScenario(temp.home, [{ role: "planner", output: { $status: "ready" } }]);
    expect(parseYaml(readFileSync(path, "utf8"))).toEqual({
      steps: [{ role: "planner", output: { $status: "ready" } }],
    });
    temp.cleanup();
    expect(existsSync(temp.home)).toBe(false);
  });
});
