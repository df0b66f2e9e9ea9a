import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  configPath,
  loadConfig,
  readConfig,
  resolveAgent,
  resolveModel,
  splitCommand,
  writeConfig,
} from "./config.js";

// Every temp home a test makes is removed after it.
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-config-"));
  made.push(dir);
  return dir;
}

describe("readConfig", () => {
  it("is empty when there is no file", () => {
    expect(readConfig(home())).toEqual({});
  });

  it("names the file when it is not YAML or not a mapping", () => {
    const dir = home();
    writeFileSync(configPath(dir), "agents: [\n");
    expect(() => readConfig(dir)).toThrow(new RegExp(`${configPath(dir)} is not valid YAML`));
    writeFileSync(configPath(dir), "- a\n- b\n");
    expect(() => readConfig(dir)).toThrow(/must be a YAML mapping/);
  });

  it("lists every malformed agent, model and provider at once", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      "agents:\n  a: { args: [x] }\n  b: { command: x, timeoutSeconds: -1 }\nmodels:\n  m: { provider: p }\nproviders:\n  p: {}\n",
    );
    expect(configErrors(dir)).toEqual([
      "agents.a.command is required (a string)",
      "agents.b.timeoutSeconds must be greater than 0, got -1",
      "models.m.name is required (a string)",
      "providers.p.baseUrl is required (a string)",
    ]);
  });

  it("names the key path and the value of every wrongly typed setting", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      [
        "defaultAgent: 42",
        "defaultModel: ''",
        "agents:",
        "  mock: { command: uwf-mock, args: [--scenario, 7], timeoutSeconds: '10' }",
        "  'my.agent': [uwf-mock]",
        "agentOverrides:",
        "  solve-issue: { reviewer: 7 }",
        "  other: reviewer",
        "modelOverrides: { extract: { name: x } }",
        "providers: []",
        "",
      ].join("\n"),
    );
    try {
      readConfig(dir);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ code: "CONFIG_INVALID" });
      expect((error as Error).message).toBe(
        [
          `${configPath(dir)} is invalid:`,
          "  defaultAgent must be a string, got 42",
          "  defaultModel must not be empty",
          "  agents.mock.args[1] must be a string, got 7",
          '  agents.mock.timeoutSeconds must be a number, got "10"',
          '  agents["my.agent"] must be a mapping, got a list',
          "  agentOverrides.solve-issue.reviewer must be a string, got 7",
          '  agentOverrides.other must be a mapping, got "reviewer"',
          "  modelOverrides.extract must be a string, got a mapping",
          "  providers must be a mapping, got a list",
        ].join("\n"),
      );
      expect((error as { hint: string }).hint).toContain(configPath(dir));
    }
  });

  it("refuses an unknown api and names the allowed ones", () => {
    const dir = home();
    writeFileSync(configPath(dir), "providers:\n  p: { baseUrl: 'http://x', api: openai }\n");
    expect(configErrors(dir)).toEqual([
      'providers.p.api must be one of anthropic, openai-chat, openai-responses, gemini, got "openai"',
    ]);
  });

  it("refuses names that point at nothing configured, listing what is", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      [
        "providers:",
        "  local: { baseUrl: 'http://127.0.0.1:9/v1' }",
        "models:",
        "  small: { provider: local, name: tiny }",
        "  big: { provider: remote, name: huge }",
        "agents:",
        "  claude: { command: uwf-claude-code, model: sonnet }",
        "defaultModel: medium",
        "modelOverrides: { extract: small }",
        "",
      ].join("\n"),
    );
    expect(configErrors(dir)).toEqual([
      'model "big" names provider "remote", which is not configured under providers',
      'agent "claude" names model "sonnet", which is not configured under models (configured: small, big)',
      'defaultModel names model "medium", which is not configured under models (configured: small, big)',
    ]);
  });

  it("refuses a base URL that is not http(s) and names that are not variable names", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      [
        "providers:",
        "  p: { baseUrl: api.openai.com/v1, apiKeyEnv: my-key }",
        "agents:",
        "  a: { command: x, env: { GOOD_NAME: '1', 'bad name': '2' } }",
        "",
      ].join("\n"),
    );
    expect(configErrors(dir)).toEqual([
      'providers.p.baseUrl must be an http:// or https:// URL, got "api.openai.com/v1"',
      'providers.p.apiKeyEnv must be an environment variable name (letters, digits, _), got "****"',
      'agents.a.env has "bad name", which is not an environment variable name (letters, digits, _)',
    ]);
  });

  it("warns about keys it does not know, at any depth, and still reads the config", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      [
        "web: { port: 8080 }",
        "providers:",
        "  p: { baseUrl: 'http://x', apikey: k }",
        "agents:",
        "  a: { command: x, timeout: 5 }",
        "modelOverrides: { summary: m }",
        "",
      ].join("\n"),
    );
    const loaded = loadConfig(dir);
    expect(loaded.file).toBe(configPath(dir));
    expect(loaded.warnings).toEqual([
      "unknown key web",
      "unknown key providers.p.apikey",
      "unknown key agents.a.timeout",
      "unknown key modelOverrides.summary",
    ]);
    expect(loaded.config.agents).toEqual({ a: { command: "x", timeout: 5 } });
  });

  it("takes a top-level key left empty as not set, and keeps keys it does not know", () => {
    const dir = home();
    writeFileSync(configPath(dir), "agents:\ndefaultAgent:\nweb: { port: 8080 }\n");
    expect(readConfig(dir)).toEqual({ web: { port: 8080 } });
  });
});

function configErrors(dir: string): string[] {
  try {
    readConfig(dir);
  } catch (error) {
    return (error as { details: { errors: string[] } }).details.errors;
  }
  throw new Error("expected the config to be refused");
}

describe("writeConfig", () => {
  it("writes mode 0600 and keeps keys it does not know", () => {
    const dir = home();
    writeConfig(dir, { defaultAgent: "mock", someOtherTool: { keep: true } });
    expect(statSync(configPath(dir)).mode & 0o777).toBe(0o600);
    expect(readConfig(dir)).toEqual({ defaultAgent: "mock", someOtherTool: { keep: true } });
    expect(readFileSync(configPath(dir), "utf8")).toContain("someOtherTool");
  });
});

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

describe("resolveModel", () => {
  const config = {
    providers: {
      local: { baseUrl: "http://127.0.0.1:9/v1/", apiKeyEnv: "LOCAL_KEY" },
      claude: { api: "anthropic" as const, baseUrl: "https://api.anthropic.com", apiKey: "k2" },
    },
    models: {
      sonnet: { provider: "claude", name: "claude-sonnet-4-5" },
      extract: { provider: "local", name: "tiny" },
      broken: { provider: "nope", name: "x" },
    },
  };

  it("gives the endpoint, its api (openai-chat unless said), the key and the model name", () => {
    expect(resolveModel(config, "extract", { LOCAL_KEY: "k" })).toEqual({
      provider: "local",
      api: "openai-chat",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "k",
      model: "tiny",
    });
    expect(resolveModel(config, "extract", {}).apiKey).toBeNull();
    expect(resolveModel(config, "sonnet", {})).toMatchObject({ api: "anthropic", apiKey: "k2" });
  });

  it("explains unknown aliases and providers", () => {
    expect(() => resolveModel(config, "big", {})).toThrow(/unknown model alias "big"/);
    expect(() => resolveModel(config, "broken", {})).toThrow(
      /names provider "nope", which is not configured/,
    );
  });
});

describe("splitCommand", () => {
  it("splits on whitespace and honours quotes", () => {
    expect(splitCommand(`node  a.js --x 'y z' "w"`)).toEqual(["node", "a.js", "--x", "y z", "w"]);
  });

  it("reads backslashes and quotes inside a word as a shell would, expanding nothing", () => {
    expect(splitCommand(String.raw`uwf-mock --scenario /tmp/a\ b/s.yaml`)).toEqual([
      "uwf-mock",
      "--scenario",
      "/tmp/a b/s.yaml",
    ]);
    expect(splitCommand(`x --title="a b" --q='it'"'"'s'`)).toEqual([
      "x",
      "--title=a b",
      "--q=it's",
    ]);
    expect(splitCommand(String.raw`x "say \"hi\" \\ \n" '\' $HOME`)).toEqual([
      "x",
      String.raw`say "hi" \ \n`,
      "\\",
      "$HOME",
    ]);
    expect(splitCommand(`x "" ''`)).toEqual(["x", "", ""]);
  });

  it("refuses an unclosed quote", () => {
    expect(() => splitCommand(`uwf-mock --scenario "a b`)).toThrowError(
      expect.objectContaining({ code: "USAGE", message: expect.stringContaining('unclosed "') }),
    );
  });
});
