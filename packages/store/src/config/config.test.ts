import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configPath, loadConfig, readConfig, writeConfig } from "./config.js";

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
