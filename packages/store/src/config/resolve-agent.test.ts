import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveAgent } from "./resolve-agent.js";

describe("resolveAgent", () => {
  const config = {
    agents: {
      mock: { command: "uwf-mock", args: ["--scenario", "s.yaml"], timeoutSeconds: 5 },
      claude: { command: "uwf-claude-code", model: "sonnet", env: { CLAUDE_X: "1" } },
    },
    defaultAgent: "claude",
    agentOverrides: { "solve-issue": { reviewer: "mock" } },
  };
  const onPath =
    (...names: string[]) =>
    (command: string) =>
      names.includes(command);

  it("prefers --agent, then the remembered agent, then the workflow/role override, then the default", () => {
    expect(resolveAgent(config, { flag: "mock", workflow: "x", role: "r" })).toEqual({
      alias: "mock",
      command: "uwf-mock",
      args: ["--scenario", "s.yaml"],
      timeoutSeconds: 5,
      model: null,
      env: {},
      source: "flag",
      choice: "mock",
    });
    const reviewer = { workflow: "solve-issue", role: "reviewer" };
    expect(resolveAgent(config, { ...reviewer, remembered: "claude" })?.source).toBe("remembered");
    expect(resolveAgent(config, { ...reviewer, remembered: "claude" })?.alias).toBe("claude");
    expect(resolveAgent(config, { ...reviewer, flag: "claude", remembered: "mock" })?.alias).toBe(
      "claude",
    );
    expect(resolveAgent(config, reviewer)).toMatchObject({ alias: "mock", source: "override" });
    expect(resolveAgent(config, { workflow: "solve-issue", role: "planner" })).toMatchObject({
      alias: "claude",
      source: "default",
    });
    expect(resolveAgent({}, { workflow: "w", role: "r" })).toBeNull();
  });

  it("gives the alias's model and environment", () => {
    expect(resolveAgent(config, { flag: "claude", workflow: "w", role: "r" })).toMatchObject({
      model: "sonnet",
      env: { CLAUDE_X: "1" },
    });
  });

  it("takes a command line for --agent, without a shell", () => {
    expect(
      resolveAgent(config, {
        flag: 'uwf-mock --scenario "my file.yaml"',
        workflow: "w",
        role: "r",
        isRunnable: onPath("uwf-mock"),
      }),
    ).toEqual({
      alias: null,
      command: "uwf-mock",
      args: ["--scenario", "my file.yaml"],
      timeoutSeconds: null,
      model: null,
      env: {},
      source: "flag",
      choice: 'uwf-mock --scenario "my file.yaml"',
    });
    expect(
      resolveAgent(config, { flag: "cat", workflow: "w", role: "r", isRunnable: onPath("cat") })
        ?.command,
    ).toBe("cat");
  });

  it("resolves a relative command in --agent against the caller's directory, and remembers it absolute", () => {
    const resolved = resolveAgent(config, {
      flag: "bin/my agent.sh --flag 'a b'",
      workflow: "w",
      role: "r",
      callerCwd: "/home/me/project",
      isRunnable: (c) => c === "/home/me/project/bin/my",
    });
    expect(resolved).toMatchObject({
      command: "/home/me/project/bin/my",
      args: ["agent.sh", "--flag", "a b"],
      choice: "/home/me/project/bin/my agent.sh --flag 'a b'",
    });
    const spaced = resolveAgent(config, {
      flag: '"./my agent" -v',
      workflow: "w",
      role: "r",
      callerCwd: "/x y",
      isRunnable: () => true,
    });
    expect(spaced).toMatchObject({ command: "/x y/my agent", args: ["-v"] });
    // What the thread remembers reads back to the same command line from anywhere.
    const again = resolveAgent(config, {
      remembered: spaced!.choice,
      workflow: "w",
      role: "r",
      callerCwd: "/elsewhere",
    });
    expect(again).toMatchObject({ command: "/x y/my agent", args: ["-v"], source: "remembered" });
  });

  it("makes relative paths among --agent's arguments absolute against the caller's directory", () => {
    const caller = mkdtempSync(join(tmpdir(), "uwf-caller-"));
    try {
      mkdirSync(join(caller, "examples", "scenarios"), { recursive: true });
      writeFileSync(join(caller, "examples", "scenarios", "run tests.yaml"), "steps: []\n");
      writeFileSync(join(caller, "s.yaml"), "steps: []\n");
      mkdirSync(join(caller, "gemini"));
      const resolved = resolveAgent(config, {
        flag: "uwf-mock --scenario 'examples/scenarios/run tests.yaml' --log=s.yaml --from missing.uwf-bundle --preset gemini",
        workflow: "w",
        role: "r",
        callerCwd: caller,
        isRunnable: onPath("uwf-mock"),
      });
      const scenario = join(caller, "examples", "scenarios", "run tests.yaml");
      // A file that is not there, and a word that is no path (even when a folder has its name),
      // stay as typed.
      const args = ["--scenario", scenario, `--log=${join(caller, "s.yaml")}`];
      args.push("--from", "missing.uwf-bundle", "--preset", "gemini");
      expect(resolved).toMatchObject({ command: "uwf-mock", args });
      // The thread remembers the absolute line: resumed from anywhere, it names the same file.
      const again = resolveAgent(config, {
        remembered: resolved!.choice,
        workflow: "w",
        role: "r",
        callerCwd: "/elsewhere",
      });
      expect(again?.args).toEqual(args);
      // Remembered and configured command lines are not rewritten: they were absolute or meant so.
      const remembered = resolveAgent(config, {
        remembered: "uwf-mock --scenario s.yaml",
        workflow: "w",
        role: "r",
        callerCwd: caller,
      });
      expect(remembered?.args).toEqual(["--scenario", "s.yaml"]);
    } finally {
      rmSync(caller, { recursive: true, force: true });
    }
  });

  it("names the known aliases and the PATH miss when a word is neither", () => {
    const attempt = () =>
      resolveAgent(config, { flag: "claud", workflow: "w", role: "r", isRunnable: onPath() });
    expect(attempt).toThrow(
      'unknown agent "claud": it is not an agent alias in config.yaml, and "claud" not found in PATH',
    );
    try {
      attempt();
    } catch (error) {
      expect((error as { hint: string }).hint).toContain("Known agents: mock, claude.");
      expect((error as { code: string }).code).toBe("AGENT_UNKNOWN");
    }
  });

  it("refuses a command line given with --agent whose command cannot run", () => {
    expect(() =>
      resolveAgent(config, {
        flag: "uwf-mokc --scenario s.yaml",
        workflow: "w",
        role: "r",
        isRunnable: onPath("uwf-mock"),
      }),
    ).toThrow('cannot run --agent "uwf-mokc --scenario s.yaml": "uwf-mokc" not found in PATH');
    expect(() =>
      resolveAgent(config, {
        flag: "./nope",
        workflow: "w",
        role: "r",
        callerCwd: "/c",
        isRunnable: onPath(),
      }),
    ).toThrow('cannot run --agent "./nope": "/c/nope" not found or not executable');
  });

  it("says where a bad choice from config or the thread came from", () => {
    expect(() =>
      resolveAgent({ defaultAgent: "ghost" }, { workflow: "w", role: "r", isRunnable: onPath() }),
    ).toThrow('unknown agent "ghost" (from defaultAgent in config.yaml)');
    expect(() =>
      resolveAgent(config, { remembered: "ghost", workflow: "w", role: "r", isRunnable: onPath() }),
    ).toThrow('unknown agent "ghost" (remembered by this thread from an earlier --agent)');
    expect(() => resolveAgent(config, { flag: "  ", workflow: "w", role: "r" })).toThrow(
      '--agent "  " is empty',
    );
  });
});
