import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configPath, openConfigFile, readConfig, saveConfigFile } from "@united-workforce/store";
import { afterEach, describe, expect, it } from "vitest";
import { applySetup, type SetupRequest } from "./plan.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-setup-"));
  made.push(dir);
  return dir;
}

function setUp(dir: string, request: SetupRequest) {
  const config = openConfigFile(dir);
  const outcome = applySetup(config, request, "/work");
  saveConfigFile(config);
  return { outcome, config: readConfig(dir) };
}

describe("applySetup", () => {
  it("fills a preset's base URL, api and key variable, and links the agent to the model", () => {
    const { outcome, config } = setUp(home(), {
      provider: "openrouter",
      model: "anthropic/claude-sonnet-4.5",
      agent: "builtin",
    });
    expect(config).toEqual({
      providers: {
        openrouter: {
          baseUrl: "https://openrouter.ai/api/v1",
          api: "openai-chat",
          apiKeyEnv: "OPENROUTER_API_KEY",
        },
      },
      models: { openrouter: { provider: "openrouter", name: "anthropic/claude-sonnet-4.5" } },
      defaultModel: "openrouter",
      agents: { builtin: { command: "uwf-builtin", model: "openrouter" } },
      defaultAgent: "builtin",
    });
    expect(outcome).toMatchObject({
      provider: "openrouter",
      modelAlias: "openrouter",
      agentAlias: "builtin",
      agent: { command: "uwf-builtin", args: [] },
      notes: [],
    });
  });

  it("keeps what it does not own, and swaps a stored key for a variable", () => {
    const dir = home();
    writeFileSync(
      configPath(dir),
      "web: { port: 1 }\nproviders:\n  local: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: sk-old, timeoutMs: 5 }\n",
    );
    const { config } = setUp(dir, {
      provider: "local",
      apiKeyEnv: "LOCAL_KEY",
      model: "m",
      modelAlias: "fast",
    });
    expect(config.web).toEqual({ port: 1 });
    expect(config.providers).toEqual({
      local: { baseUrl: "http://127.0.0.1:1/v1", timeoutMs: 5, apiKeyEnv: "LOCAL_KEY" },
    });
    expect(config.defaultModel).toBe("fast");
  });

  it("recognises adapter commands uwf knows, and makes a relative command absolute", () => {
    const dir = home();
    let { outcome } = setUp(dir, { agent: "uwf-acp --preset gemini --yolo" });
    expect(outcome.agentAlias).toBe("gemini");
    expect(readConfig(dir).agents?.gemini).toEqual({
      command: "uwf-acp",
      args: ["--preset", "gemini", "--yolo"],
    });
    ({ outcome } = setUp(dir, { agent: "./bin/my-agent.sh --fast" }));
    expect(outcome.agentAlias).toBe("my-agent");
    expect(readConfig(dir).agents?.["my-agent"]).toEqual({
      command: "/work/bin/my-agent.sh",
      args: ["--fast"],
    });
    ({ outcome } = setUp(dir, { agent: "my-agent" }));
    expect(outcome.agent).toEqual({ command: "/work/bin/my-agent.sh", args: ["--fast"] });
    expect(readConfig(dir).defaultAgent).toBe("my-agent");
  });

  it("takes an agent CLI's own name for the adapter that drives it, and refuses it with args", () => {
    const claude = setUp(home(), { agent: "claude" });
    expect(claude.config.agents).toEqual({ "claude-code": { command: "uwf-claude-code" } });
    expect(claude.outcome.notes).toEqual([
      "claude is the agent CLI that uwf-claude-code drives: configured the adapter, claude-code.",
    ]);
    expect(setUp(home(), { agent: "claude-agent-acp" }).config.agents).toEqual({
      "claude-acp": { command: "uwf-acp", args: ["--preset", "claude"] },
    });
    // A name that is also a preset's alias is the preset, as before.
    expect(setUp(home(), { agent: "codex" }).config.agents).toEqual({
      codex: { command: "uwf-codex" },
    });
    const dir = home();
    for (const [word, preset] of [
      ["claude -p", "claude-code"],
      ["/usr/local/bin/claude", "claude-code"],
      ["codex exec --json", "codex"],
      ["gemini --acp", "gemini"],
    ] as const) {
      expect(() => applySetup(openConfigFile(dir), { agent: word }, "/")).toThrow(
        expect.objectContaining({
          code: "USAGE",
          message: expect.stringContaining(`did you mean --agent ${preset}?`),
        }),
      );
    }
  });

  it("notes a model on a protocol the agent does not speak", () => {
    const { outcome } = setUp(home(), { provider: "openai", model: "gpt-5", agent: "claude-code" });
    expect(outcome.notes).toEqual([
      expect.stringContaining(
        "Claude Code talks to anthropic endpoints, and provider openai is openai-chat",
      ),
    ]);
  });

  it("refuses what cannot be set up, naming the flag", () => {
    const dir = home();
    const refuse = (request: SetupRequest) => () => applySetup(openConfigFile(dir), request, "/");
    expect(refuse({ provider: "acme", model: "m" })).toThrow(
      /"acme" is not a provider preset, so it needs --base-url/,
    );
    expect(refuse({ model: "m" })).toThrow(/--model needs --provider/);
    expect(refuse({ provider: "openai" })).toThrow(/--provider needs --model/);
    expect(refuse({ provider: "openai", model: "m", apiKey: "k", apiKeyEnv: "K" })).toThrow(
      /not both/,
    );
    expect(refuse({})).toThrow(/nothing to set up/);
  });
});
