import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("malformed input and faults", () => {
  let temp: TempHome;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  async function startHello(): Promise<string> {
    await uwf("workflow", "add", "examples/hello.yaml");
    return (await uwf("thread", "start", "hello", "-p", "Greet")).stdout.trim();
  }

  it("a number where config.yaml wants an agent alias is a config error naming the key", async () => {
    const thread = await startHello();
    writeFileSync(
      join(temp.home, "config.yaml"),
      "defaultAgent: 42\nagentOverrides:\n  hello: { greeter: 7 }\n",
    );
    const exec = await uwf("thread", "exec", thread, "--format", "json");
    expect(exec.code).toBe(1);
    expect(JSON.parse(exec.stderr).error).toMatchObject({
      code: "CONFIG_INVALID",
      message: `${join(temp.home, "config.yaml")} is invalid:\n  defaultAgent must be a string, got 42\n  agentOverrides.hello.greeter must be a string, got 7`,
    });
    const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(show).toMatchObject({ status: "idle", steps: 0 });
  });

  it("keeps a new UWF_HOME for its owner: the folder 0700, the files uwf writes 0600", async () => {
    const home = join(temp.home, "fresh", "uwf");
    const run = (...args: string[]) => runUwf(args, { home: temp.home, env: { UWF_HOME: home } });
    const scenario = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "hi" } },
    ]);
    await run("workflow", "add", "examples/hello.yaml");
    const thread = (await run("thread", "start", "hello", "-p", "Greet")).stdout.trim();
    const exec = await run(
      "thread",
      "exec",
      thread,
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
    );
    expect(exec.code).toBe(0);
    const mode = (path: string) => (statSync(join(home, path)).mode & 0o777).toString(8);
    expect(mode(".")).toBe("700");
    expect(mode("logs")).toBe("700");
    for (const log of readdirSync(join(home, "logs"))) expect(mode(`logs/${log}`)).toBe("600");
    expect(mode(`threads/${thread}.json`)).toBe("600");
    expect(mode("workflows/hello.json")).toBe("600");
    expect(mode("cache")).toBe("700");
    expect(mode("cache/validators")).toBe("700");
    for (const file of readdirSync(join(home, "cache/validators")))
      expect(mode(`cache/validators/${file}`)).toBe("600");
  });
});
