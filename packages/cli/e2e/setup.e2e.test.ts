import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, dirname, join } from "node:path";
import {
  type FakeLlm,
  REPO_ROOT,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";

const SECRET = "sk-test-9f8e7d6c5b4a3210zyxwvutsrq";
/** The pinned real agent CLIs (see test/agent-clis). */
const AGENT_CLIS = join(
  process.env.UWF_AGENT_CLIS_DIR ?? join(REPO_ROOT, "test/agent-clis"),
  "node_modules/.bin",
);
/** A PATH with node and nothing of uwf's: every adapter is missing. */
const BARE_PATH = dirname(process.execPath);

describe("uwf setup", () => {
  let fake: FakeLlm;
  let temp: TempHome;
  let file: string;
  beforeAll(async () => {
    fake = await startFakeLlm({ script: { steps: [{ text: "OK" }] } });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    temp = tempHome();
    file = join(temp.home, "config.yaml");
    fake.setScript({ steps: [{ text: "OK" }] });
  });
  afterEach(() => temp.cleanup());

  const uwf = (
    args: string[],
    options: { env?: Record<string, string | undefined>; input?: string } = {},
  ) => runUwf(["setup", ...args], { home: temp.home, ...options });
  const saved = () => parse(readFileSync(file, "utf8"));

  it("writes provider, model and agent by flags, checks the model with one token, hides the key", async () => {
    writeFileSync(file, "web: { port: 8080 }\n");
    const before = fake.requests().length;
    const run = await uwf([
      "--provider",
      "local",
      "--base-url",
      fake.baseUrl,
      "--api-key",
      SECRET,
      "--model",
      "fake-model",
      "--agent",
      "uwf-mock --scenario s.yaml",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      `Config saved to ${file} ✓`,
      "✓ model fake-model at local: answered (HTTP 200, openai-chat)",
      `✓ agent mock: uwf-mock found at ${join(REPO_ROOT, "node_modules/.bin/uwf-mock")}`,
      "",
    ]);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(saved()).toEqual({
      web: { port: 8080 },
      providers: { local: { baseUrl: fake.baseUrl, apiKey: SECRET } },
      models: { local: { provider: "local", name: "fake-model" } },
      defaultModel: "local",
      agents: { mock: { command: "uwf-mock", args: ["--scenario", "s.yaml"], model: "local" } },
      defaultAgent: "mock",
    });
    const requests = fake.requests().slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: "/v1/chat/completions",
      body: { model: "fake-model", max_tokens: 1 },
      headers: { authorization: `Bearer ${SECRET}` },
    });
  });

  it("fills a preset's api and key variable, and reads the key from UWF_HOME/.env", async () => {
    writeFileSync(join(temp.home, ".env"), `ANTHROPIC_API_KEY=${SECRET}\n`);
    const before = fake.requests().length;
    const run = await uwf(
      ["--provider", "anthropic", "--base-url", fake.url, "--model", "claude-sonnet-4-5"],
      { env: { ANTHROPIC_API_KEY: undefined } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(saved().providers.anthropic).toEqual({
      baseUrl: fake.url,
      api: "anthropic",
      apiKeyEnv: "ANTHROPIC_API_KEY",
    });
    const [request] = fake.requests().slice(before);
    expect(request).toMatchObject({
      url: "/v1/messages",
      body: { model: "claude-sonnet-4-5", max_tokens: 1 },
      headers: { "x-api-key": SECRET },
    });
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it("saves but exits 1 when the model refuses, saying why and what to do", async () => {
    fake.setScript({ steps: [{ error: { status: 401, message: "invalid x-api-key" } }] });
    const run = await uwf([
      "--provider",
      "local",
      "--base-url",
      fake.baseUrl,
      "--api-key-env",
      "LOCAL_KEY",
      "--model",
      "fake-model",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`Config saved to ${file} ✓`);
    expect(run.stdout).toContain("✗ model fake-model at local: HTTP 401: invalid x-api-key");
    expect(run.stdout).toContain("$LOCAL_KEY is not set");
    expect(run.stdout).toContain("1 check failed");
    expect(saved().providers.local).toEqual({ baseUrl: fake.baseUrl, apiKeyEnv: "LOCAL_KEY" });
  });

  it("warns, without failing, when --api-key-env names a variable that is not set", async () => {
    const warned = await uwf(
      [
        "--provider",
        "myp",
        "--base-url",
        fake.baseUrl,
        "--api-key-env",
        "MYP_KEY",
        "--model",
        "fake-model",
      ],
      { env: { MYP_KEY: undefined } },
    );
    expect(warned.code, warned.stdout).toBe(0);
    expect(warned.stdout).toContain("✓ model fake-model at myp: answered");
    expect(warned.stdout).toContain(
      `! provider myp: key: $MYP_KEY is not set, nor in ${join(temp.home, ".env")}: requests go out without a key`,
    );
    const set = await uwf(
      ["--provider", "myp", "--api-key-env", "MYP_KEY", "--model", "fake-model"],
      { env: { MYP_KEY: SECRET } },
    );
    expect(set.code, set.stdout).toBe(0);
    expect(set.stdout).not.toContain("MYP_KEY");
  });

  it("reports an unreachable provider", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/v1`;
    const run = await uwf([
      "--provider",
      "gone",
      "--base-url",
      url,
      "--model",
      "m",
      "--format",
      "json",
    ]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      file,
      saved: true,
      checks: [
        {
          name: "model m at gone",
          ok: false,
          detail: `cannot reach ${url}/chat/completions: ECONNREFUSED`,
        },
      ],
    });
  });

  it("names the adapter and its agent CLI when missing, with the install command", async () => {
    const missing = await uwf(["--agent", "claude-code"], { env: { PATH: BARE_PATH } });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      [
        '✗ agent claude-code: "uwf-claude-code" not found in PATH',
        "    Install it: `npm run install-cli` in a checkout of uwf installs every adapter (once uwf is published: `npm i -g @united-workforce/agent-claude-code @anthropic-ai/claude-code`)",
      ].join("\n"),
    );
    expect(saved()).toEqual({
      agents: { "claude-code": { command: "uwf-claude-code" } },
      defaultAgent: "claude-code",
    });

    // The adapter is there (a stand-in: only its presence is checked), and then its CLI.
    const bin = join(temp.home, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "uwf-claude-code"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, "uwf-claude-code"), 0o755);
    const noCli = await uwf(["--agent", "claude-code"], {
      env: { PATH: [bin, BARE_PATH].join(delimiter) },
    });
    expect(noCli.code).toBe(1);
    expect(noCli.stdout).toContain('✗ agent claude-code: claude: "claude" not found in PATH');
    // The adapter is installed: only the agent CLI it drives is left to install.
    expect(noCli.stdout).toContain(
      "uwf-claude-code drives claude. Install it: npm i -g @anthropic-ai/claude-code",
    );
    const withCli = await uwf(["--agent", "claude-code"], {
      env: { PATH: [bin, AGENT_CLIS, BARE_PATH].join(delimiter) },
    });
    expect(withCli.code, withCli.stdout).toBe(0);
    expect(withCli.stdout).toContain(`✓ agent claude-code: claude: claude found at ${AGENT_CLIS}`);
  });

  it("sets up the adapter for an agent CLI's name, and refuses the CLI's own command line", async () => {
    const run = await uwf(["--agent", "claude", "--skip-checks"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      "note: claude is the agent CLI that uwf-claude-code drives: configured the adapter, claude-code.",
    );
    expect(saved()).toEqual({
      agents: { "claude-code": { command: "uwf-claude-code" } },
      defaultAgent: "claude-code",
    });
    const raw = await uwf(["--agent", "claude --dangerously-skip-permissions"]);
    expect(raw.code).toBe(2);
    expect(raw.stderr).toContain(
      '"claude --dangerously-skip-permissions" runs claude, the agent CLI itself, which does not speak uwf\'s adapter protocol: did you mean --agent claude-code?',
    );
    expect(saved().agents).toEqual({ "claude-code": { command: "uwf-claude-code" } });
  });

  it("refuses an unknown preset without --base-url, and no flags without a terminal", async () => {
    const unknown = await uwf(["--provider", "acme", "--model", "m"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"acme" is not a provider preset, so it needs --base-url');
    expect(unknown.stderr).toContain("openai, anthropic, gemini, xai, openrouter");
    const bare = await uwf([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("uwf setup needs flags when it is not run in a terminal");
    const badApi = await uwf([
      "--provider",
      "x",
      "--base-url",
      "http://x",
      "--api",
      "soap",
      "--model",
      "m",
    ]);
    expect(badApi.code).toBe(2);
  });

  it("names the flag whose value the config refuses, and saves nothing", async () => {
    const url = await uwf(["--provider", "mine", "--base-url", "ftp://x", "--model", "m"]);
    expect(url.code).toBe(2);
    expect(url.stderr).toContain(
      `error: uwf setup refused --base-url, nothing was saved to ${file}: --base-url: providers.mine.baseUrl must be an http:// or https:// URL, got "ftp://x"`,
    );
    const env = await uwf(["--provider", "openai", "--api-key-env", "BAD NAME", "--model", "m"]);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain("error: uwf setup refused --api-key-env, nothing was saved");
    expect(env.stderr).toContain("--api-key-env: providers.openai.apiKeyEnv must be");
    const json = await uwf([
      "--provider",
      "mine",
      "--base-url",
      "ftp://x",
      "--model",
      "m",
      "--format",
      "json",
    ]);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: "USAGE", flags: ["--base-url"] });
    expect(existsSync(file)).toBe(false);
  });

  it("asks with --interactive, reading answers from stdin, without echoing the key", async () => {
    const answers = [
      "mine",
      fake.baseUrl,
      "",
      SECRET,
      "fake-model",
      "uwf-mock --scenario s.yaml",
      "",
    ];
    const run = await uwf(["--interactive"], { input: answers.join("\n") });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("Provider (a preset, another name, or - to skip) [openrouter]: ");
    expect(run.stderr).toContain(
      "API (anthropic, openai-chat, openai-responses, gemini) [openai-chat]: ",
    );
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(saved()).toMatchObject({
      providers: { mine: { baseUrl: fake.baseUrl, api: "openai-chat", apiKey: SECRET } },
      models: { mine: { provider: "mine", name: "fake-model" } },
      defaultAgent: "mock",
    });

    const cut = await uwf(["--interactive"], { input: "mine\n" });
    expect(cut.code).toBe(2);
    expect(cut.stderr).toContain(
      "the input ended before setup had all its answers: nothing was written",
    );
  });
});
