import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
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
});
