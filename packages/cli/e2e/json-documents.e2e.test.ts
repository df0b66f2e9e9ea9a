import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { type DocumentName, documentSchemas } from "@united-workforce/protocol";
import {
  REPO_ROOT,
  runUwf,
  startPostgres,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandContext } from "../src/commands/command.js";
import { COMMANDS } from "../src/commands/index.js";
import { startDashboard } from "./dashboard-fixture.js";

const DOCUMENT_SCHEMAS = documentSchemas();

/**
 * A schema as uwf's own output must meet it: every object that lists its properties lists all
 * of them, unless it says `additionalProperties: true`. Consumers may see more keys one day
 * (DESIGN §13); uwf printing a key its schema does not know is drift.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === "properties"
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, closed(v)]))
        : key === "enum" || key === "required" || key === "const"
          ? value
          : closed(value);
  }
  if ("properties" in out && !("additionalProperties" in out)) out.additionalProperties = false;
  return out;
}

// Scripts and coding agents parse these documents: their keys are a contract (DESIGN §13).
describe("every --format json document matches its schema in protocol", () => {
  const ajv = new Ajv({ allErrors: true, strict: false, formats: { "cas-ref": true } });
  let temp: TempHome;
  const seen = new Set<DocumentName>();

  function validate(name: DocumentName, doc: unknown, what: string): void {
    const validator = ajv.compile(closed(DOCUMENT_SCHEMAS[name]) as object);
    expect(validator(doc), `${what}: ${ajv.errorsText(validator.errors)}`).toBe(true);
    seen.add(name);
  }

  /** Run `uwf <args> --format json` and check its stdout against the command's schema. */
  async function check(
    args: string[],
    { input, code = 0 }: { input?: string; code?: number } = {},
  ): Promise<Record<string, unknown>> {
    const spec = COMMANDS.find((c) => c.path.every((word, i) => args[i] === word));
    if (!spec) throw new Error(`no command for ${args.join(" ")}`);
    const name = spec.path.join(" ") as DocumentName;
    const result = await runUwf([...args, "--format", "json"], {
      home: temp.home,
      ...(input === undefined ? {} : { input }),
    });
    expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(code);
    const doc = JSON.parse(result.stdout);
    validate(name, doc, args.join(" "));
    return doc;
  }

  /** Run a command that fails and check the error document on stderr. */
  async function checkError(args: string[], code: number): Promise<{ code: string }> {
    const result = await runUwf([...args, "--format", "json"], { home: temp.home });
    expect(result.code, args.join(" ")).toBe(code);
    expect(result.stdout).toBe("");
    const doc = JSON.parse(result.stderr);
    validate("error", doc, args.join(" "));
    return doc.error;
  }

  beforeAll(() => {
    temp = tempHome();
  });
  afterAll(() => temp.cleanup());

  it("for every command, run for real", async () => {
    const mock = (scenario: string) => `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    const greetings = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
      { role: "greeter", output: { $status: "done", greeting: "Hello again" } },
    ]);
    const agent = ["--agent", mock(greetings)];

    const added = await check(["workflow", "add", "examples/hello.yaml"]);
    mkdirSync(join(temp.home, "v2"));
    const hello2 = join(temp.home, "v2", "hello.yaml");
    writeFileSync(
      hello2,
      readFileSync(join(REPO_ROOT, "examples/hello.yaml"), "utf8").replace(
        "description: One agent",
        "description: Still one agent",
      ),
    );
    await check(["workflow", "add", hello2]);
    await check(["workflow", "show", "hello"]);
    await check(["workflow", "validate", "examples/solve-issue.yaml"]);
    await check(["workflow", "list"]);
    await check(["workflow", "history", "hello"]);
    await check(["workflow", "rollback", "hello"]);

    const text = await check(["cas", "put-text", "some text"]);
    await check(["cas", "get", String(text.hash)]);
    await check(["cas", "has", String(text.hash)]);
    await check(["cas", "has", "0000000000000"], { code: 1 });
    await check(["cas", "refs", String(added.hash)]);
    await check(["cas", "walk", String(added.hash)]);
    await check(["cas", "put", "--type", "schema"], { input: '{"type":"string"}' });

    const started = await check(["thread", "start", "hello", "-p", "Greet Ada"]);
    const thread = String(started.thread);
    await check(["thread", "exec", thread, ...agent]);
    await check(["thread", "show", thread]);
    // A pending steer note is in show's document too.
    const steered = String((await check(["thread", "start", "hello", "-p", "Greet Bo"])).thread);
    await check(["thread", "steer", steered, "-p", "Be brief."]);
    await check(["thread", "show", steered]);
    // A race, the raced thread's show (its races), a fork's show, and a promotion.
    const greet = writeScenario(
      temp.home,
      [{ role: "greeter", output: { $status: "done", greeting: "Hey" } }],
      "race.yaml",
    );
    const raced = String((await check(["thread", "start", "hello", "-p", "Greet Cy"])).thread);
    const race = await check([
      "thread",
      "race",
      raced,
      "--agents",
      `${mock(greet)},${mock(greet)}`,
    ]);
    const [fork] = race.forks as { thread: string }[];
    await check(["thread", "show", raced]);
    await check(["thread", "show", fork!.thread]);
    await check(["thread", "race", "promote", fork!.thread]);
    await check(["thread", "show", raced]);
    await check(["thread", "list"]);
    await check(["thread", "list", "--count"]);
    await check(["store", "reindex"]);
    await check(["thread", "read", thread]);
    // A completed thread restarts through $START.resume; poke then redoes that step.
    await check(["thread", "resume", thread, ...agent]);
    await check(["thread", "poke", thread, "-p", "Shorter, please.", ...agent]);
    await check(["thread", "stop", thread]);
    await check(["thread", "join", thread]);
    await check(["thread", "verify", thread]);
    const bundle = join(temp.home, "thread.uwf-bundle");
    await check(["thread", "export", thread, "-o", bundle]);
    await check(["thread", "import", bundle]);
    await check(["thread", "trace", thread, "-o", join(temp.home, "trace.json")]);
    const rerouted = await check(["thread", "reroute", thread, "--workflow", "hello"]);
    expect(rerouted).toMatchObject({ ok: true, firstChange: null });
    const edited = join(temp.home, "edited", "hello.yaml");
    mkdirSync(join(temp.home, "edited"));
    const hello = readFileSync(join(REPO_ROOT, "examples/hello.yaml"), "utf8");
    writeFileSync(edited, hello.replace("Greet the person", "Warmly greet the person"));
    const planned = await check(["thread", "rebase", thread, "-w", edited, "--dry-run"]);
    expect(planned).toMatchObject({ dryRun: true, rebased: null, firstChange: { step: 1 } });
    const rebased = await check(["thread", "rebase", thread, "-w", edited, ...agent]);
    expect(rebased).toMatchObject({ run: { status: "completed" } });
    const grepped = await check(["thread", "grep", "Ada", "--thread", thread]);
    expect((grepped.matches as unknown[]).length).toBeGreaterThan(0);

    const steps = await check(["step", "list", thread]);
    const first = (steps.steps as { hash: string }[])[0]!.hash;
    await check(["step", "show", first]);
    await check(["step", "read", first]);
    const forked = await check(["step", "fork", first]);
    await check(["thread", "tree", thread]);
    await check(["thread", "diff", thread, String(forked.thread)]);
    await check(["usage", "--by", "thread,model", "--since", "1d"]);
    await check(["schedule", "hello", "--cron", "0 6 * * 1-5", "--target", "systemd"]);
    const idle = await check(["thread", "start", "hello", "-p", "Never mind"]);
    await check(["thread", "cancel", String(idle.thread)]);
    // A thread in its own git worktree: show, fork, cancel and cleanup say what became of it.
    const repo = join(temp.home, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync("git", args, { cwd: repo, env: { ...process.env, HOME: temp.home } });
    git("init", "--quiet");
    git(
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      "commit",
      "--quiet",
      "--allow-empty",
      "-m",
      "init",
    );
    const isolated = await check([
      "thread",
      "start",
      "hello",
      "-p",
      "Hi",
      "--cwd",
      repo,
      "--worktree",
    ]);
    const ran = await check(["thread", "exec", String(isolated.thread), ...agent]);
    await check(["thread", "show", String(isolated.thread)]);
    // Its step ran in a git working tree: the thread has a receipt, which verify checks.
    const receipt = join(temp.home, "receipt.json");
    await check(["thread", "receipt", String(isolated.thread), "-o", receipt]);
    await check(["thread", "verify", "--receipt", receipt]);
    await check(["step", "fork", (ran.steps as { hash: string }[])[0]!.hash]);
    await check(["thread", "cleanup", String(isolated.thread)]);
    const cancelled = await check([
      "thread",
      "start",
      "hello",
      "-p",
      "Hi",
      "--cwd",
      repo,
      "--worktree",
    ]);
    await check(["thread", "cancel", String(cancelled.thread)]);

    const background = String((await check(["thread", "start", "hello", "-p", "Hi"])).thread);
    const worker = await check(["thread", "exec", background, "--background", ...agent]);
    expect(worker.pid).toEqual(expect.any(Number));
    const joined = await check(["thread", "join", background]);
    expect(joined.status).toBe("completed");
    const watched = await check(["thread", "watch", background]);
    expect(watched).toMatchObject({ status: "completed", followed: false });

    await check(["cas", "verify"]);
    await check(["cas", "gc"]);
    const postgres = await startPostgres();
    try {
      await check(["store", "migrate", "--to", await postgres.createDatabase()]);
    } finally {
      await postgres.stop();
    }
    await check(["workflow", "rm", "hello"]);

    await check(["log", "list"]);
    await check(["log", "show"]);
    await check(["log", "clean"]);
    // About sixty commands, each a process: a hang guard, not a time bound, on 2 shared cores.
  }, 120_000);

  // Its own test, so the long one above keeps its time budget on a loaded machine.
  it("for setup, config and doctor", async () => {
    await check(["setup", "--agent", "uwf-mock --scenario s.yaml", "--skip-checks"]);
    await check(["config", "set", "providers.local", "{ baseUrl: 'http://127.0.0.1:9/v1' }"]);
    await check(["config", "list"]);
    await check(["config", "get", "agents.mock"]);
    await check(["config", "unset", "providers.local"]);
    await check(["doctor"]);
  });

  // Its own test too, for the same reason.
  it("for the prompt guides", async () => {
    await check(["prompt", "list"]);
    expect(await check(["completion", "fish"])).toMatchObject({ shell: "fish" });
    for (const name of ["usage", "workflow-authoring", "adapter-developing", "bootstrap"]) {
      expect(await check(["prompt", name])).toMatchObject({ name });
    }
  });

  it("for workflow test: a same route and a miss", async () => {
    const scenario = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    const mock = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    const started = await check(["thread", "start", "examples/hello.yaml", "-p", "Greet Bo"]);
    const thread = String(started.thread);
    await check(["thread", "exec", thread, "--agent", mock]);
    const same = await check(["workflow", "test", "examples/hello.yaml", "--from", thread]);
    expect(same).toMatchObject({ ok: true, threads: [{ result: "same", miss: null }] });
    mkdirSync(join(temp.home, "edited"), { recursive: true });
    const edited = join(temp.home, "edited", "hello.yaml");
    writeFileSync(
      edited,
      readFileSync(join(REPO_ROOT, "examples/hello.yaml"), "utf8").replace(
        "goal: Greet the person",
        "goal: Warmly greet the person",
      ),
    );
    const missed = await check(["workflow", "test", edited, "--from", thread], { code: 1 });
    expect(missed).toMatchObject({ ok: false, threads: [{ result: "miss", step: 1 }] });
  });

  it("for thread answer", async () => {
    const writer = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${join(REPO_ROOT, "examples/scenarios/approval-gate.yaml")}`;
    const started = await check(["thread", "start", "examples/approval-gate.yaml", "-p", "Hi"]);
    const thread = String(started.thread);
    await check(["thread", "exec", thread, "--agent", writer]);
    const answered = await check(["thread", "answer", thread, "--status", "approved"]);
    expect(answered).toMatchObject({ status: "completed", step: { agent: "human" } });
  });

  it("for errors, on stderr with a stable code, whoever raised them", async () => {
    expect(await checkError(["thread", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"], 1)).toMatchObject({
      code: "THREAD_NOT_FOUND",
      hint: expect.stringContaining("uwf thread list"),
    });
    expect((await checkError(["thread", "list", "--limit", "x"], 2)).code).toBe("USAGE");
    expect((await checkError(["thread", "list", "--no-such-flag"], 2)).code).toBe("USAGE");
    const bad = join(temp.home, "bad.yaml");
    writeFileSync(bad, "name: bad\nroles: {}\ngraph: {}\n");
    expect((await checkError(["workflow", "add", bad], 3)).code).toBe("WORKFLOW_INVALID");
    expect((await checkError(["config", "get", "defaultModel"], 1)).code).toBe(
      "CONFIG_KEY_NOT_SET",
    );
  });

  it("uwf dashboard prints its document when it is stopped", async () => {
    const dash = await startDashboard(temp.home, ["--format", "json"]);
    expect(await dash.stop()).toBe(130);
    validate("dashboard", JSON.parse(dash.process.stdout()), "dashboard");
  });

  it("uwf mcp prints nothing: stdout carries the protocol, and the summary it returns fits", async () => {
    const run = await runUwf(["mcp", "--format", "json"], { home: temp.home });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("");
    // The document the command returns (the session's summary), from a session that ends at once.
    const { serveMcp } = await import("../src/mcp/server.js");
    const stdin = new PassThrough();
    stdin.end();
    const context = {
      signal: new AbortController().signal,
      progress: () => {},
      output: () => {},
    } as unknown as CommandContext;
    validate("mcp", await serveMcp(context, stdin), "mcp");
  });

  it("leave no document without a command, nor a command without a document", () => {
    const fork = ajv.compile(closed(DOCUMENT_SCHEMAS["step fork"]) as object);
    const doc = { thread: "01ARZ3NDEKTSV4RRFFQ69G5FAV", forkedFrom: "0000000000000" };
    expect(fork(doc)).toBe(true);
    expect(fork({ ...doc, undocumented: 1 }), "a key the schema does not list").toBe(false);
    const names = (Object.keys(DOCUMENT_SCHEMAS) as DocumentName[]).sort();
    expect(names).toEqual(["error", ...COMMANDS.map((c) => c.path.join(" "))].sort());
    expect([...seen].sort()).toEqual(names);
  });
});
