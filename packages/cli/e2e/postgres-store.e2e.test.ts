import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  makeGitRepo,
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  startPostgres,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

/** The same commands a user runs, with the store in a real PostgreSQL server. */

const MOCK = `uwf-mock --scenario ${join(REPO_ROOT, "examples/scenarios/hello.yaml")}`;
const HELLO = join(REPO_ROOT, "examples/hello.yaml");

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres({ countStatements: true });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** A machine: its own UWF_HOME (config, logs, caches), optionally naming itself in config.yaml. */
function machine(config = ""): string {
  const home = mkdtempSync(join(tmpdir(), "uwf-pg-e2e-"));
  homes.push(home);
  if (config !== "") writeFileSync(join(home, "config.yaml"), config, { mode: 0o600 });
  return home;
}

async function uwf(home: string, args: string[], env: Record<string, string> = {}) {
  const result = await runUwf(args, { home, env });
  if (result.code !== 0) {
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  }
  return result.stdout.trim();
}

describe("uwf on a PostgreSQL store", () => {
  it("runs the README demo; only config, logs and caches stay on this machine", async () => {
    const url = (await server.createDatabase()).replace("uwf@", "uwf:s3cret@");
    const home = machine();
    const env = { UWF_STORE: url };
    await uwf(home, ["workflow", "add", HELLO], env);
    const id = await uwf(
      home,
      ["thread", "start", "hello", "-p", "Greet Ada, who joins today."],
      env,
    );
    await uwf(home, ["thread", "exec", id, "--agent", MOCK], env);
    const list = JSON.parse(await uwf(home, ["thread", "list", "--format", "json"], env));
    expect(list).toMatchObject({ total: 1, threads: [{ thread: id, status: "completed" }] });
    const steps = JSON.parse(await uwf(home, ["step", "list", id, "--format", "json"], env));
    expect(steps.steps.map((s: { role: string; status: string }) => [s.role, s.status])).toEqual([
      ["greeter", "done"],
    ]);
    expect(await uwf(home, ["cas", "verify"], env)).toMatch(/ 0 corrupt$/);
    for (const local of ["cas", "threads", "workflows", "locks"]) {
      expect(existsSync(join(home, local))).toBe(false);
    }
  });

  it("runs a step on one connection, in at most 8 statements; the adapter opens none", async () => {
    const url = await server.createDatabase();
    const home = machine();
    const env = { UWF_STORE: url };
    await uwf(home, ["workflow", "add", HELLO], env);
    // Outside a git working tree (the thread's cwd is the machine's home): no receipt.
    const id = await uwf(
      home,
      ["thread", "start", "hello", "-p", "Greet Ada.", "--cwd", home],
      env,
    );
    await server.activity(url);
    await uwf(home, ["thread", "exec", id, "--agent", MOCK], env);
    const exec = await server.activity(url);
    // The schema version, the lease, the thread, the nodes the step reads (one statement), the
    // adapter's pid in the lease, the adapter's nodes, the new head, the lease's release.
    expect(exec.connections).toBe(1);
    expect(exec.statements.length, exec.statements.join("\n")).toBeLessThanOrEqual(8);
    const done = JSON.parse(await uwf(home, ["thread", "show", id, "--format", "json"], env));
    expect(done).toMatchObject({ status: "completed", steps: 1 });

    // In a git working tree the step is written again with its receipt: one statement more.
    const repo = makeGitRepo(home, join(home, "repo"), { "README.md": "hi\n" });
    const inRepo = await uwf(
      home,
      ["thread", "start", "hello", "-p", "Greet Bo.", "--cwd", repo],
      env,
    );
    await server.activity(url);
    await uwf(home, ["thread", "exec", inRepo, "--agent", MOCK], env);
    const receipted = await server.activity(url);
    expect(receipted.connections).toBe(1);
    expect(receipted.statements.length, receipted.statements.join("\n")).toBeLessThanOrEqual(9);
  });

  it("lets two machines share threads: one starts, the other runs, both see the result", async () => {
    const url = await server.createDatabase();
    const laptop = machine(`store: ${url}\nhost: laptop\n`);
    const runner = machine(`store: ${url}\nhost: ci-runner-7\n`);
    await uwf(laptop, ["workflow", "add", HELLO]);
    const id = await uwf(runner, ["thread", "start", "hello", "-p", "Greet Ada."]);
    const seen = JSON.parse(await uwf(laptop, ["thread", "show", id, "--format", "json"]));
    expect(seen).toMatchObject({ thread: id, status: "idle", workflow: "hello" });
    await uwf(runner, ["thread", "exec", id, "--agent", MOCK]);
    const done = JSON.parse(await uwf(laptop, ["thread", "show", id, "--format", "json"]));
    expect(done).toMatchObject({ status: "completed", steps: 1 });
  });

  it("finds a fork family and sums usage from the shared store, on any machine", async () => {
    const url = await server.createDatabase();
    const laptop = machine(`store: ${url}\nhost: laptop\n`);
    const runner = machine(`store: ${url}\nhost: ci-runner-7\n`);
    const id = await uwf(runner, ["thread", "start", HELLO, "-p", "Greet Ada."]);
    await uwf(runner, ["thread", "exec", id, "--agent", MOCK]);
    const steps = JSON.parse(await uwf(runner, ["step", "list", id, "--format", "json"]));
    const fork = await uwf(runner, ["step", "fork", steps.steps[0].hash]);
    const tree = JSON.parse(await uwf(laptop, ["thread", "tree", fork, "--format", "json"]));
    expect(
      tree.threads.map((t: { thread: string; parent: string | null }) => [t.thread, t.parent]),
    ).toEqual([
      [id, null],
      [fork, id],
    ]);
    // The laptop has no cache yet and reads the chain from PostgreSQL.
    const usage = JSON.parse(await uwf(laptop, ["usage", "--by", "thread", "--format", "json"]));
    expect(usage.total.steps).toBe(1);
    expect(usage.rows.map((r: { key: { thread: string } }) => r.key.thread)).toEqual([id]);
  });

  it("says which store cannot be reached, without its password", async () => {
    const home = machine();
    const result = await runUwf(["thread", "list"], {
      home,
      env: { UWF_STORE: "postgres://ci:hunter2@127.0.0.1:1/uwf" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot use the store at postgres://ci:****@127.0.0.1:1/uwf");
    expect(result.stderr).toContain("`store:` URL in config.yaml (or UWF_STORE)");
    expect(result.stderr).not.toContain("hunter2");
  });
  it("doctor connects to the store config.yaml names and shows it without its password", async () => {
    const url = (await server.createDatabase()).replace("uwf@", "uwf:s3cret@");
    const home = machine(`store: '${url}'\n`);
    const run = await runUwf(["doctor"], { home });
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(
      `✓ store: ${url.replace("s3cret", "****")} (from config.yaml): connected`,
    );
    expect(run.stdout + run.stderr).not.toContain("s3cret");
  });

  it("waits for a human answer and runs a script step on it, like on files", async () => {
    const env = { UWF_STORE: await server.createDatabase() };
    const home = machine();
    const gate = join(REPO_ROOT, "examples/approval-gate.yaml");
    const writer = `uwf-mock --scenario ${join(REPO_ROOT, "examples/scenarios/approval-gate.yaml")}`;
    const id = await uwf(home, ["thread", "start", gate, "-p", "Announce 2.0"], env);
    await uwf(home, ["thread", "exec", id, "--agent", writer], env);
    const waiting = JSON.parse(await uwf(home, ["thread", "show", id, "--format", "json"], env));
    expect(waiting.suspended).toMatchObject({ kind: "human", role: "approver" });
    const answer = ["thread", "answer", id, "--status", "approved", "--format", "json"];
    expect(JSON.parse(await uwf(home, answer, env))).toMatchObject({
      status: "completed",
      step: { role: "approver", status: "approved", agent: "human" },
    });

    const project = machine();
    writeFileSync(join(project, "probe.mjs"), 'console.log(\'{"$status":"passed","count":1}\')');
    const probe = join(REPO_ROOT, "packages/cli/e2e/fixtures/steps/probe.yaml");
    const run = await uwf(home, ["thread", "start", probe, "-p", "Probe", "--cwd", project], env);
    await uwf(home, ["thread", "exec", run], env);
    const steps = JSON.parse(await uwf(home, ["step", "list", run, "--format", "json"], env));
    expect(steps.steps).toMatchObject([{ role: "probe", status: "passed", agent: "script" }]);
  });

  it("runs a fan-out: children, their parent and the join are rows like any thread", async () => {
    const env = { UWF_STORE: await server.createDatabase() };
    const home = machine();
    const review = join(REPO_ROOT, "examples/fan-out-review.yaml");
    const agent = `uwf-mock --scenario ${join(REPO_ROOT, "examples/scenarios/fan-out-review.yaml")}`;
    const id = await uwf(home, ["thread", "start", review, "-p", "Review src/"], env);
    const exec = ["thread", "exec", id, "-c", "5", "--agent", agent, "--format", "json"];
    expect(JSON.parse(await uwf(home, exec, env))).toMatchObject({
      status: "completed",
      steps: [{ role: "planner" }, { role: "collect", agent: "join" }, { role: "summariser" }],
    });
    const list = JSON.parse(await uwf(home, ["thread", "list", "--format", "json"], env));
    expect(list.total).toBe(4);
    const child = list.threads.find((t: { thread: string }) => t.thread !== id);
    const shown = JSON.parse(
      await uwf(home, ["thread", "show", child.thread, "--format", "json"], env),
    );
    expect(shown).toMatchObject({ status: "completed", parent: { thread: id } });
    await uwf(home, ["thread", "verify", "--all"], env);
  });
});
