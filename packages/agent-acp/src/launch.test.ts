import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { type LaunchInputs, planLaunch } from "./launch.js";

let temp: TempHome;
let progress: string[];
beforeEach(() => {
  temp = tempHome();
  progress = [];
});
afterEach(() => temp.cleanup());

const PARENT_ENV = {
  PATH: "/usr/bin",
  HOME: "/home/ada",
  LANG: "C.UTF-8",
  TMPDIR: "/tmp/x",
  OPENAI_API_KEY: "sk-other-provider",
  ANTHROPIC_API_KEY: "sk-ant-other",
  GEMINI_API_KEY: "own-gemini-key",
  UWF_HOME: "/home/ada/.uwf",
  SECRET_TOKEN: "nope",
};

function plan(inputs: Partial<LaunchInputs>) {
  return planLaunch({
    preset: undefined,
    passthrough: [],
    bin: undefined,
    model: undefined,
    mode: undefined,
    passEnv: undefined,
    home: temp.home,
    env: PARENT_ENV,
    progress: (line) => progress.push(line),
    ...inputs,
  });
}

function writeConfig(config: Record<string, unknown>): void {
  writeFileSync(join(temp.home, "config.yaml"), stringify(config));
}

describe("planLaunch", () => {
  it("starts a preset's command with a minimal environment plus the agent's own login", () => {
    const launch = plan({ preset: "gemini" });
    expect([launch.command, ...launch.args]).toEqual(["gemini", "--acp"]);
    expect(launch.env).toEqual({
      TERM: "dumb",
      PATH: "/usr/bin",
      HOME: "/home/ada",
      LANG: "C.UTF-8",
      TMPDIR: "/tmp/x",
      GEMINI_API_KEY: "own-gemini-key",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
    });
    expect(launch).toMatchObject({ label: "gemini", mode: null, model: null });
  });

  it("gives other providers' keys only to the agent that uses them", () => {
    expect(plan({ preset: "claude" }).env.ANTHROPIC_API_KEY).toBe("sk-ant-other");
    expect(plan({ preset: "claude" }).env.OPENAI_API_KEY).toBeUndefined();
    expect(plan({ preset: "codex" }).env.OPENAI_API_KEY).toBe("sk-other-provider");
    expect(plan({ preset: "codex" }).env.GEMINI_API_KEY).toBeUndefined();
  });

  it("sets claude's session mode to acceptEdits unless --mode says otherwise", () => {
    expect(plan({ preset: "claude" }).mode).toBe("acceptEdits");
    expect(plan({ preset: "claude", mode: "default" }).mode).toBe("default");
    expect(plan({ preset: "hermes" })).toMatchObject({
      command: "hermes",
      args: ["acp"],
      mode: null,
    });
  });

  it("runs any agent given after `--`, seeing only what --pass-env adds", () => {
    const launch = plan({
      passthrough: ["my-agent", "--acp", "--verbose"],
      passEnv: "SECRET_TOKEN, LANG",
    });
    expect(launch).toMatchObject({
      label: "my-agent",
      command: "my-agent",
      args: ["--acp", "--verbose"],
      preset: null,
    });
    expect(launch.env.SECRET_TOKEN).toBe("nope");
    expect(launch.env.GEMINI_API_KEY).toBeUndefined();
    expect(launch.env.UWF_HOME).toBeUndefined();
  });

  it("replaces the preset's binary with --bin and appends words after `--`", () => {
    const launch = plan({
      preset: "gemini",
      bin: "/opt/gemini/bin/gemini",
      passthrough: ["--debug"],
    });
    expect([launch.command, ...launch.args]).toEqual([
      "/opt/gemini/bin/gemini",
      "--acp",
      "--debug",
    ]);
  });

  it("explains what to pass when no agent is named, the preset is unknown, or a name is bad", () => {
    expect(() => plan({})).toThrow(
      "say which agent to run: --preset <name> or -- <agent command…>",
    );
    expect(() => plan({ preset: "gemni" })).toThrow('unknown preset "gemni"');
    expect(() => plan({ passthrough: ["x"], bin: "/y" })).toThrow(
      /--bin replaces a preset's binary/,
    );
    expect(() => plan({ preset: "gemini", passEnv: "A-B" })).toThrow(
      '"A-B" is not an environment variable name',
    );
  });

  it("points gemini at a configured model through settings in its own state dir", () => {
    writeConfig({
      providers: { fake: { baseUrl: "http://127.0.0.1:9999/v1beta/", apiKey: "k-123" } },
      models: { flash: { provider: "fake", name: "gemini-2.5-flash" } },
    });
    const launch = plan({ preset: "gemini", model: "flash" });
    const home = join(temp.home, "acp/gemini/gemini-home");
    expect(launch.args).toEqual(["--acp", "-m", "gemini-2.5-flash"]);
    expect(launch.env).toMatchObject({
      GEMINI_CLI_HOME: home,
      GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9999",
      GEMINI_API_KEY: "k-123",
    });
    expect(launch.model).toBe("gemini-2.5-flash");
    const settings = join(home, ".gemini/settings.json");
    expect(JSON.parse(readFileSync(settings, "utf8"))).toMatchObject({
      security: { auth: { selectedType: "gemini-api-key" } },
      general: { maxAttempts: 1 },
    });
    expect(statSync(settings).mode & 0o777).toBe(0o600);
    expect(readFileSync(settings, "utf8")).not.toContain("k-123");
  });

  it("points claude at a configured model with its own config dir, starting in acceptEdits", () => {
    writeConfig({
      providers: { fake: { api: "anthropic", baseUrl: "http://127.0.0.1:9999/v1", apiKey: "k-9" } },
      models: { sonnet: { provider: "fake", name: "claude-fake" } },
    });
    const launch = plan({ preset: "claude", model: "sonnet" });
    const configDir = join(temp.home, "acp/claude/claude-config");
    expect(launch.env).toMatchObject({
      CLAUDE_CONFIG_DIR: configDir,
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
      ANTHROPIC_MODEL: "claude-fake",
      ANTHROPIC_API_KEY: "k-9",
      CLAUDE_CODE_MAX_RETRIES: "0",
      CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION: "false",
      CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: "1",
    });
    const settings = join(configDir, "settings.json");
    expect(JSON.parse(readFileSync(settings, "utf8"))).toEqual({
      permissions: { defaultMode: "acceptEdits" },
    });
    expect(statSync(settings).mode & 0o777).toBe(0o600);
  });

  it("points codex at a configured model with a provider whose key stays in the environment", () => {
    writeConfig({
      providers: { p: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_KEY" } },
      models: { m: { provider: "p", name: "gpt-5.5" } },
    });
    const launch = planLaunch({
      preset: "codex",
      passthrough: [],
      bin: undefined,
      model: "m",
      mode: undefined,
      passEnv: undefined,
      home: temp.home,
      env: { ...PARENT_ENV, MY_KEY: "from-env" },
      progress: () => {},
    });
    expect(launch.env.UWF_ACP_API_KEY).toBe("from-env");
    const toml = readFileSync(join(launch.env.CODEX_HOME!, "config.toml"), "utf8");
    expect(toml).toContain('model = "gpt-5.5"');
    expect(toml).toContain('base_url = "http://127.0.0.1:9/v1"');
    expect(toml).not.toContain("from-env");
  });

  it("passes a name that is not an alias to gemini as its own model, and refuses where it cannot", () => {
    expect(plan({ preset: "gemini", model: "gemini-2.5-pro" }).args).toEqual([
      "--acp",
      "-m",
      "gemini-2.5-pro",
    ]);
    expect(progress).toEqual([
      'model "gemini-2.5-pro" is not a configured alias: gemini gets it as its own model name',
    ]);
    expect(() => plan({ preset: "codex", model: "gpt-x" })).toThrow('unknown model alias "gpt-x"');
    writeConfig({
      providers: { p: { baseUrl: "http://x" } },
      models: { m: { provider: "p", name: "n" } },
    });
    expect(() => plan({ preset: "hermes", model: "m" })).toThrow(
      '--model m: uwf-acp cannot point preset "hermes" at a configured provider',
    );
    expect(() => plan({ passthrough: ["a"], model: "m" })).toThrow(
      /cannot point an agent given as `-- <command>`/,
    );
  });
});
