import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const SECRET = "sk-live-0123456789abcdefghijklmnopqrstuv";

describe("uwf config", () => {
  let temp: TempHome;
  let file: string;
  beforeEach(() => {
    temp = tempHome();
    file = join(temp.home, "config.yaml");
  });
  afterEach(() => temp.cleanup());

  const uwf = (args: string[], input?: string) =>
    runUwf(args, { home: temp.home, ...(input === undefined ? {} : { input }) });

  it("sets values typed by the schema, writes 0600, and lists them with secrets masked", async () => {
    expect((await uwf(["config", "list"])).stdout).toContain("no ");
    for (const [key, value] of [
      ["providers.local", "{ baseUrl: 'http://127.0.0.1:1/v1' }"],
      ["providers.local.apiKey", SECRET],
      ["models.small", "{ provider: local, name: '0' }"],
      ["models.small.name", "4"],
      ["agents.mock", "{ command: uwf-mock }"],
      ["agents.mock.args", "[--scenario, s.yaml]"],
      ["agents.mock.timeoutSeconds", "90"],
      ["agents.mock.env", `{ GITHUB_TOKEN: ${SECRET}, MODE: fast }`],
      ["agents.mock.model", "small"],
      ["defaultAgent", "mock"],
    ]) {
      const set = await uwf(["config", "set", key!, value!]);
      expect(set.code, set.stderr).toBe(0);
      expect(set.stdout + set.stderr).not.toContain(SECRET);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const list = await uwf(["config", "list"]);
    expect(list.stdout).toBe(
      [
        "providers.local.baseUrl = http://127.0.0.1:1/v1",
        "providers.local.apiKey = sk-…stuv",
        "models.small.provider = local",
        "models.small.name = 4",
        "agents.mock.command = uwf-mock",
        'agents.mock.args = ["--scenario","s.yaml"]',
        "agents.mock.timeoutSeconds = 90",
        "agents.mock.env.GITHUB_TOKEN = sk-…stuv",
        "agents.mock.env.MODE = fast",
        "agents.mock.model = small",
        "defaultAgent = mock",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await uwf(["config", "list", "--format", "json"])).stdout);
    expect(json.settings).toContainEqual({ key: "agents.mock.timeoutSeconds", value: 90 });
    expect(json.settings).toContainEqual({ key: "models.small.name", value: "4" });

    const get = await uwf(["config", "get", "providers.local"]);
    expect(get.stdout).toBe("baseUrl: http://127.0.0.1:1/v1\napiKey: sk-…stuv\n");
    expect((await uwf(["config", "get", "agents.mock.timeoutSeconds"])).stdout).toBe("90\n");
    for (const format of ["json", "yaml"]) {
      const out = await uwf(["config", "get", "providers.local.apiKey", "--format", format]);
      expect(out.stdout).not.toContain(SECRET);
    }
    expect(readFileSync(file, "utf8")).toContain(SECRET);
  });

  it("list says when UWF_STORE overrides the store: it shows, with the password masked", async () => {
    writeFileSync(file, "store: fs\n");
    const list = (env: Record<string, string>) =>
      runUwf(["config", "list"], { home: temp.home, env });
    const overridden = await list({ UWF_STORE: "postgres://uwf:s3cret-pw@127.0.0.1:1/uwf" });
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(overridden.stdout).toBe("store = fs\n");
    expect(overridden.stderr).toContain(
      "note: store: overridden by UWF_STORE=postgres://uwf:****@127.0.0.1:1/uwf",
    );
    expect(overridden.stderr).not.toContain("s3cret-pw");
    // The same store either way: nothing to say.
    expect((await list({ UWF_STORE: "fs" })).stderr).not.toContain("note:");
    expect((await list({})).stderr).not.toContain("note:");
  });

  it("masks env keys named like secrets, URL parameters, flags' values and numeric keys", async () => {
    writeFileSync(
      file,
      [
        "providers:",
        "  p: { baseUrl: 'https://x/v1?api_key=sk-query-secret-0123', apiKey: 123456789012345678901234 }",
        "agents:",
        "  x:",
        "    command: x",
        "    args: [--api-key, sk-args-secret-0123456789, --token=sk-inline-secret]",
        "    env: { OPENAI_KEY: sk-env-one, ANTHROPIC_KEY: sk-env-two, PASS: hunter2, MY_AUTH: Bearer sk-env-three }",
        "store: postgres://db/uwf?password=hunter3",
        "",
      ].join("\n"),
    );
    const text = (await uwf(["config", "list"])).stdout;
    const json = (await uwf(["config", "get", "agents", "--format", "json"])).stdout;
    for (const out of [text, json]) {
      for (const secret of ["sk-query", "sk-args", "sk-inline", "sk-env", "hunter", "2345678"]) {
        expect(out).not.toContain(secret);
      }
    }
    expect(text).toContain("providers.p.baseUrl = https://x/v1?api_key=****\n");
    expect(text).toContain("providers.p.apiKey = ****\n");
    expect(text).toContain("store = postgres://db/uwf?password=****\n");
  });

  it("reads a secret from stdin with -, keeping it out of argv", async () => {
    await uwf(["config", "set", "providers.p.baseUrl", "https://x/v1"]);
    const set = await uwf(["config", "set", "providers.p.apiKey", "-"], `${SECRET}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(`providers.p.apiKey = sk-…stuv (saved to ${file})\n`);
    expect(readFileSync(file, "utf8")).toContain(`apiKey: ${SECRET}\n`);
  });

  it("refuses an empty API key, typed or from an empty stdin", async () => {
    await uwf(["config", "set", "providers.p.baseUrl", "https://x/v1"]);
    const before = readFileSync(file, "utf8");
    const typed = await uwf(["config", "set", "providers.p.apiKey", ""]);
    expect(typed.code).not.toBe(0);
    expect(typed.stderr).toContain("providers.p.apiKey must not be empty");
    const piped = await uwf(["config", "set", "providers.p.apiKey", "-"], "");
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain("error: no value on stdin for providers.p.apiKey (given as -)");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("keeps other tools' keys and comments, and warns about them once", async () => {
    writeFileSync(file, "# mine\nweb: { port: 8080 } # the dashboard's\ndefaultAgent: a\n");
    const set = await uwf(["config", "set", "defaultAgent", "b"]);
    expect(set.code).toBe(0);
    expect(set.stderr).toBe(
      `warning: unknown key web in ${file} (uwf ignores it: check the spelling, see https://github.com/united-workforce/uwf/blob/main/docs/config.md)\n`,
    );
    expect(readFileSync(file, "utf8")).toBe(
      "# mine\nweb: { port: 8080 } # the dashboard's\ndefaultAgent: b\n",
    );
  });

  it("says how to add a new entry whose other required keys are missing", async () => {
    const partial = await uwf(["config", "set", "models.fast.provider", "p"]);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toContain("models.fast.name is required (a string)");
    expect(partial.stderr).toContain("uwf config set 'models.fast' '{ key: value, … }'");
  });

  it("refuses an unknown key with a suggestion, and a wrong type naming key and file", async () => {
    const typo = await uwf(["config", "set", "providers.p.baseURL", "http://x"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("error: unknown config key providers.p.baseURL");
    expect(typo.stderr).toContain("Did you mean providers.p.baseUrl?");

    await uwf(["config", "set", "agents.a.command", "x"]);
    const before = readFileSync(file, "utf8");
    const wrong = await uwf(["config", "set", "agents.a.timeoutSeconds", "soon"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      `error: refused the value for agents.a.timeoutSeconds, nothing was written to ${file}: `,
    );
    expect(wrong.stderr).toContain('agents.a.timeoutSeconds must be a number, got "soon"');
    const dangling = await uwf(["config", "set", "agents.a.model", "big"]);
    expect(dangling.code).toBe(2);
    expect(dangling.stderr).toContain(
      'agent "a" names model "big", which is not configured under models (no models are configured)',
    );
    expect(readFileSync(file, "utf8")).toBe(before);

    const json = await uwf(["config", "set", "agents.a.timeoutSeconds", "-3", "--format", "json"]);
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: "USAGE",
      key: "agents.a.timeoutSeconds",
      file,
      errors: ["agents.a.timeoutSeconds must be greater than 0, got -3"],
    });
  });

  it("never echoes a secret in a refusal: a URL's password, a numeric key", async () => {
    const url = await uwf(["config", "set", "providers.p.baseUrl", "ftp://user:hunter2pass@host"]);
    expect(url.stderr).toContain('must be an http:// or https:// URL, got "ftp://user:****@host"');
    const key = await uwf([
      "config",
      "set",
      "providers.q",
      "{ baseUrl: 'http://x', apiKey: 123456789012345678901234 }",
    ]);
    expect(key.stderr).toContain("providers.q.apiKey must be a string, got a number");
    for (const out of [url, key]) {
      expect(out.code).not.toBe(0);
      expect(out.stderr).not.toMatch(/hunter2pass|1\.23|e\+23/);
    }
  });

  it("refuses a store no backend opens, so every command can still read the config", async () => {
    const set = await uwf(["config", "set", "store", "mysql://x"]);
    expect(set.code).not.toBe(0);
    expect(set.stderr).toContain('store must be fs or a postgres:// URL, got "mysql://x"');
    expect(existsSync(file)).toBe(false);
    expect((await uwf(["thread", "list"])).code).toBe(0);
  });

  it("says a refused value was not written, and blames the file only for its own problems", async () => {
    writeFileSync(file, "defaultAgent: a\n");
    const refused = await uwf(["config", "set", "leaseSeconds", "-5"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      [
        `error: refused the value for leaseSeconds, nothing was written to ${file}: leaseSeconds must be greater than 0, got -5`,
        "hint: Give leaseSeconds a value that fits (https://github.com/united-workforce/uwf/blob/main/docs/config.md lists each key's type and what it may name).",
        "",
      ].join("\n"),
    );
    expect(readFileSync(file, "utf8")).toBe("defaultAgent: a\n");

    writeFileSync(file, "defaultAgent: 42\n");
    const broken = await uwf(["config", "set", "leaseSeconds", "5"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`error: ${file} is invalid:`);
  });

  it("get exits 1 for a key that is not set, and unset removes keys", async () => {
    const missing = await uwf(["config", "get", "defaultAgent"]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toContain(`error: defaultAgent is not set in ${file}`);
    expect(missing.stderr).toContain("uwf config set defaultAgent <value>");

    await uwf(["config", "set", "providers.p", "{ baseUrl: 'http://x/v1', apiKey: k }"]);
    await uwf(["config", "set", "models.m", "{ provider: p, name: n }"]);
    const needed = await uwf(["config", "unset", "providers.p"]);
    // The removal is what is wrong, not the file, which is left as it was.
    expect(needed.code).toBe(2);
    expect(needed.stderr).toContain(
      `error: refused to remove providers.p, nothing was written to ${file}: `,
    );
    expect(needed.stderr).toContain('model "m" names provider "p", which is not configured');
    expect(needed.stderr).not.toContain("is invalid");
    expect((await uwf(["config", "unset", "providers.p.apiKey"])).stdout).toBe(
      `removed providers.p.apiKey from ${file}\n`,
    );
    expect((await uwf(["config", "unset", "providers.p.apiKey"])).stdout).toBe(
      `providers.p.apiKey was not set in ${file}\n`,
    );
    expect((await uwf(["config", "get", "providers.p"])).stdout).toBe("baseUrl: http://x/v1\n");
  });

  it("shows a config uwf refuses, with its problems on stderr", async () => {
    writeFileSync(file, "defaultAgent: 42\n");
    const list = await uwf(["config", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe("defaultAgent = 42\n");
    expect(list.stderr).toContain(`error: defaultAgent must be a string, got 42 in ${file}`);
    const fix = await uwf(["config", "set", "defaultAgent", "mock"]);
    expect(fix.code, fix.stderr).toBe(0);
  });

  it("reports a YAML syntax error by line and column without quoting the file", async () => {
    writeFileSync(file, `providers:\n  p: {baseUrl: http://x, apiKey: ${SECRET}\nagents: [\n`);
    const text = await uwf(["thread", "list"]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(`error: ${file} is not valid YAML: line 3, column 1: Flow map`);
    const json = await uwf(["thread", "list", "--format", "json"]);
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: "CONFIG_INVALID", line: 3 });
    for (const out of [text, json, await uwf(["config", "list"])]) {
      expect(out.stderr).not.toContain(SECRET.slice(8));
    }
  });

  it("refuses a YAML alias bomb as a config error, not a bug", async () => {
    const levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i <= 7; i++)
      levels.push(`a${i}: &a${i} [${`*a${i - 1}, `.repeat(8)}*a${i - 1}]`);
    writeFileSync(file, `${levels.join("\n")}\n`);
    for (const args of [
      ["config", "list"],
      ["config", "set", "defaultAgent", "x"],
      ["thread", "list"],
    ]) {
      const out = await uwf(args);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`error: ${file}: refused to expand YAML aliases`);
      expect(out.stderr).not.toContain("bug in uwf");
    }
  });

  it("warns about unknown keys once per command, naming key and file", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    writeFileSync(
      file,
      [
        "agents:",
        "  mock:",
        `    command: ${process.execPath}`,
        `    args: [${UWF_MOCK_BIN}, --scenario, ${scenario}]`,
        "    timeout: 30",
        "defaultAgent: mock",
        "",
      ].join("\n"),
    );
    await uwf(["workflow", "add", "examples/hello.yaml"]);
    const thread = (await uwf(["thread", "start", "hello", "-p", "Hi"])).stdout.trim();
    const exec = await uwf(["thread", "exec", thread]);
    expect(exec.code, exec.stderr).toBe(0);
    const warning = `warning: unknown key agents.mock.timeout in ${file}`;
    expect(exec.stderr.split(warning)).toHaveLength(2);
  });
});
