import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import {
  type FakeLlm,
  freePort,
  REPO_ROOT,
  runUwf,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

/** The pinned real agent CLIs (see test/agent-clis). */
const AGENT_CLIS = join(
  process.env.UWF_AGENT_CLIS_DIR ?? join(REPO_ROOT, "test/agent-clis"),
  "node_modules/.bin",
);
const PATH = [AGENT_CLIS, join(REPO_ROOT, "node_modules/.bin"), dirname(process.execPath)].join(
  delimiter,
);

describe("uwf doctor", () => {
  let fake: FakeLlm;
  let temp: TempHome;
  beforeAll(async () => {
    fake = await startFakeLlm({});
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  const doctor = (...args: string[]) =>
    runUwf(["doctor", ...args], { home: temp.home, env: { PATH } });
  const config = (lines: string[]) =>
    writeFileSync(join(temp.home, "config.yaml"), `${lines.join("\n")}\n`);

  it("passes with a reachable provider and agents on PATH, showing their versions", async () => {
    const noVersion = join(temp.home, "no-version");
    writeFileSync(noVersion, "#!/bin/sh\nexit 2\n");
    chmodSync(noVersion, 0o755);
    config([
      "providers:",
      `  local: { baseUrl: '${fake.baseUrl}', apiKey: sk-never-sent-0123456789abcdef }`,
      "models:",
      "  small: { provider: local, name: fake-model }",
      "agents:",
      "  claude: { command: uwf-claude-code, model: small }",
      "  mock: { command: uwf-mock }",
      `  broken: { command: ${noVersion} }`,
    ]);
    const before = fake.requests().length;
    const run = await doctor();
    expect(run.code, run.stdout).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    const { version } = JSON.parse(
      readFileSync(join(REPO_ROOT, "packages/agent-mock/package.json"), "utf8"),
    ) as { version: string };
    expect(lines[0]).toBe(`✓ node: v${process.versions.node}`);
    expect(lines[1]).toBe(`✓ config: ${join(temp.home, "config.yaml")} is valid`);
    expect(lines[2]).toBe(`✓ store: fs: ${temp.home} is writable`);
    // The adapter, then the real Claude Code CLI it drives, each with its --version.
    const bin = join(REPO_ROOT, "node_modules/.bin");
    expect(lines.splice(3, 1)[0]).toBe(
      `✓ agent claude: ${join(bin, "uwf-claude-code")} (uwf-claude-code ${version})`,
    );
    expect(lines[3]).toBe(
      `✓ agent claude: claude: ${join(AGENT_CLIS, "claude")} (2.1.197 (Claude Code))`,
    );
    const mock = join(REPO_ROOT, "node_modules/.bin/uwf-mock");
    expect(lines[4]).toBe(`✓ agent mock: ${mock} (${version})`);
    // A command that fails --version is there, which is what counts, but not with a tick.
    expect(lines[5]).toBe(`! agent broken: ${noVersion} (--version failed (exit 2))`);
    expect(lines[6]).toBe(
      `    It is on PATH but did not answer --version: run \`${noVersion} --version\` to see why.`,
    );
    // Any HTTP answer shows the host is up; an error status is shown, not ticked.
    expect(lines[7]).toBe(
      `! provider local: ${fake.baseUrl} answered HTTP 404: the host is up, the URL itself is not a page`,
    );
    expect(lines[8]).toContain("uwf config set providers.local.baseUrl <url>");
    expect(lines[9]).toBe("all 8 checks passed, 2 with a warning");
    // Reachability is a plain GET: no key is sent anywhere.
    const requests = fake.requests().slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "GET", url: "/v1" });
    expect(JSON.stringify(requests[0]!.headers)).not.toContain("sk-never-sent");

    const json = JSON.parse((await doctor("--format", "json")).stdout);
    expect(json.ok).toBe(true);
    expect(json.checks[6]).toMatchObject({ name: "agent broken", ok: true, warning: true });
    expect(json.checks[5].warning).toBeUndefined();
  });

  it("fails with exit 1 for a missing binary and an unreachable provider, in text and json", async () => {
    const gone = `http://127.0.0.1:${await freePort()}/v1`;
    config([
      "providers:",
      `  down: { baseUrl: '${gone}' }`,
      "agents:",
      "  codex: { command: uwf-no-such-adapter }",
      "  cc: { command: uwf-claude-code }",
      "  raw: { command: claude }",
    ]);
    // A PATH without the repository's adapters: uwf-claude-code is not installed here.
    const bare = [AGENT_CLIS, dirname(process.execPath)].join(delimiter);
    const doctorBare = (...args: string[]) =>
      runUwf(["doctor", ...args], { home: temp.home, env: { PATH: bare } });
    const run = await doctorBare();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '✗ agent codex: "uwf-no-such-adapter" not found in PATH\n    Install it or check your PATH config. Run: which uwf-no-such-adapter',
    );
    expect(run.stdout).toContain(
      '✗ agent cc: "uwf-claude-code" not found in PATH\n    Install it: `npm run install-cli` in a checkout of uwf installs every adapter (once uwf is published: `npm i -g @united-workforce/agent-claude-code @anthropic-ai/claude-code`)',
    );
    // The agent CLI itself is there and answers --version, but would fail every step.
    expect(run.stdout).toContain(
      "✗ agent raw: claude is the Claude Code CLI itself, which does not speak uwf's adapter protocol\n    uwf runs it through uwf-claude-code: uwf setup --agent claude-code --agent-alias raw configures that.",
    );
    expect(run.stdout).toContain(`✗ provider down: cannot reach ${gone}: ECONNREFUSED`);
    expect(run.stdout.trimEnd().split("\n").pop()).toBe("4 of 7 checks failed");

    const json = await doctorBare("--format", "json");
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(doc.ok).toBe(false);
    expect(doc.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ["node", true],
      ["config", true],
      ["store", true],
      ["agent codex", false],
      ["agent cc", false],
      ["agent raw", false],
      ["provider down", false],
    ]);
  });

  it("warns that a relative agent command is read from each thread's cwd", async () => {
    writeFileSync(join(temp.home, "my-agent"), "#!/bin/sh\necho 1.0\n");
    chmodSync(join(temp.home, "my-agent"), 0o755);
    config(["agents:", "  rel: { command: ./my-agent }", "  gone: { command: ./no-agent }"]);
    const run = await runUwf(["doctor"], { home: temp.home, cwd: temp.home, env: { PATH } });
    expect(run.stdout).toContain(
      `! agent rel: ./my-agent found at ${join(temp.home, "my-agent")}, from here\n    A relative command is read from each thread's cwd`,
    );
    expect(run.stdout).toContain(
      `✗ agent gone: "./no-agent" not found or not executable in ${temp.home} (a relative command`,
    );
  });

  it("reports an invalid config and still looks at what it can read", async () => {
    config(["agents:", "  a: { command: uwf-mock, timeoutSeconds: soon, colour: blue }"]);
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `✗ config: ${join(temp.home, "config.yaml")}: agents.a.timeoutSeconds must be a number, got "soon"`,
    );
    // What it can read of the agent is still checked.
    expect(run.stdout).toContain("✓ agent a: ");
  });

  it("fails a store that does not open, from UWF_STORE or config.yaml, its password masked", async () => {
    const port = await freePort();
    const down = await runUwf(["doctor"], {
      home: temp.home,
      env: { PATH, UWF_STORE: `postgres://uwf:s3cret-pw@127.0.0.1:${port}/uwf` },
    });
    expect(down.code).toBe(1);
    expect(down.stdout).toContain(
      `✗ store: postgres://uwf:****@127.0.0.1:${port}/uwf (from UWF_STORE): connect ECONNREFUSED 127.0.0.1:${port}\n    check that the PostgreSQL server is running`,
    );
    expect(down.stdout + down.stderr).not.toContain("s3cret-pw");
    expect(down.stdout.trimEnd().split("\n").pop()).toBe("1 of 4 checks failed");

    config(["store: mysql://x"]);
    const unknown = await doctor();
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain(
      '✗ store: mysql://x (from config.yaml): unknown store "mysql://x"\n    set `store:` in config.yaml (or UWF_STORE) to `fs` or a postgres://user@host/db URL',
    );
  });

  it("warns about a provider whose key variable is set neither in the environment nor in .env", async () => {
    config([
      "providers:",
      `  bare: { baseUrl: '${fake.baseUrl}', apiKeyEnv: BARE_KEY }`,
      `  dotenv: { baseUrl: '${fake.baseUrl}', apiKeyEnv: DOTENV_KEY }`,
      `  stored: { baseUrl: '${fake.baseUrl}', apiKey: sk-in-config-0123456789, apiKeyEnv: NONE_KEY }`,
    ]);
    writeFileSync(join(temp.home, ".env"), "DOTENV_KEY=sk-from-dotenv-0123456789\n");
    const run = await runUwf(["doctor"], {
      home: temp.home,
      env: { PATH, BARE_KEY: undefined, DOTENV_KEY: undefined, NONE_KEY: undefined },
    });
    expect(run.code, run.stdout).toBe(0);
    const dotenv = join(temp.home, ".env");
    expect(run.stdout).toContain(
      `! provider bare: key: $BARE_KEY is not set, nor in ${dotenv}: requests go out without a key\n    Set it (export BARE_KEY=…, or a line BARE_KEY=… in ${dotenv}), or store the key: uwf config set providers.bare.apiKey <key>.`,
    );
    expect(run.stdout).toContain("✓ provider dotenv: key: $DOTENV_KEY is set");
    // A key in config.yaml is used whatever the variable says.
    expect(run.stdout).not.toContain("provider stored: key");
    expect(run.stdout + run.stderr).not.toContain("sk-from-dotenv");
  });

  it("fails a built-in agent without a model, and a --model alias config.yaml lacks", async () => {
    config([
      "providers:",
      `  local: { baseUrl: '${fake.baseUrl}' }`,
      "models:",
      "  small: { provider: local, name: fake-model }",
      "agents:",
      "  b: { command: uwf-builtin }",
      "  typo: { command: uwf-builtin, args: [--model, nosuchalias] }",
      "  ok: { command: uwf-builtin, model: small }",
    ]);
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "✗ agent b: model: uwf-builtin needs a model, and has none: no --model in its args, no model:, no defaultModel\n    Give it one: uwf config set agents.b.model <alias> (or defaultModel).",
    );
    expect(run.stdout).toContain(
      "✗ agent typo: model: --model nosuchalias in its args is not a model in config.yaml\n    Known models: small.",
    );
    expect(run.stdout).not.toContain("agent ok: model");
    expect(run.stdout.trimEnd().split("\n").pop()).toMatch(/^2 of \d+ checks failed/);
  });

  it("checks many providers at once without a listener-leak warning", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `p${i}`);
    config(["providers:", ...names.map((name) => `  ${name}: { baseUrl: '${fake.baseUrl}' }`)]);
    const run = await doctor();
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain("! provider p11: ");
    expect(run.stderr).not.toContain("MaxListenersExceededWarning");
  });

  it("says there is nothing configured yet without failing", async () => {
    const run = await doctor();
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain("✓ config: no ");
    expect(run.stdout).toContain("✓ agents: none configured");
  });
});
