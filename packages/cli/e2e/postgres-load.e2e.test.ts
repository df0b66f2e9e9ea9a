import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  startPostgres,
} from "@united-workforce/test-utils";
import { afterAll, describe, expect, it } from "vitest";

/**
 * Many `uwf thread exec` processes in flight on one database: each needs one connection, those
 * refused for want of a slot ("too many clients", 53300) wait and try again, and every one
 * completes. Each case logs what it saw (refused attempts, connections, wall time) for the
 * record; nothing here asserts a time.
 */

const MOCK = `uwf-mock --scenario ${join(REPO_ROOT, "examples/scenarios/hello.yaml")}`;
const HELLO = join(REPO_ROOT, "examples/hello.yaml");
/** PostgreSQL's own default. */
const DEFAULT_MAX_CONNECTIONS = 100;
/** The least PostgreSQL accepts (more than its 3 reserved slots, which the superuser may use). */
const FEWEST_CONNECTIONS = 4;
/**
 * 128 in flight is more than CI's two cores run in a test's time: set UWF_TEST_LOAD_EXECS=128 to
 * run that case by hand (every case then uses it).
 */
const STARTS_AT_ONCE = 4;
const HEAVY_EXECS = Number(process.env.UWF_TEST_LOAD_EXECS ?? 0);

const servers: PostgresServer[] = [];
const homes: string[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A home whose config.yaml is `config` (none when empty). */
function machine(config = ""): string {
  const home = mkdtempSync(join(tmpdir(), "uwf-pg-load-"));
  homes.push(home);
  if (config !== "") writeFileSync(join(home, "config.yaml"), config, { mode: 0o600 });
  return home;
}

async function uwf(home: string, args: string[], env: Record<string, string>): Promise<string> {
  const result = await runUwf(args, { home, env, timeoutMs: 240_000 });
  if (result.code !== 0) {
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  }
  return result.stdout.trim();
}

/**
 * Start `execs` hello threads, run them all at once, and check that every exec succeeded and
 * every thread completed.
 */
async function execsInFlight(options: { execs: number; maxConnections: number; config?: string }) {
  const server = await startPostgres({
    maxConnections: options.maxConnections,
    countStatements: true,
  });
  servers.push(server);
  const url = await server.createDatabase();
  const env = { UWF_STORE: url };
  const home = machine(options.config);
  await uwf(home, ["workflow", "add", HELLO], env);
  const ids: string[] = [];
  // Started a few at a time: the setup, not what is measured.
  for (let n = 0; n < options.execs; n += STARTS_AT_ONCE) {
    const batch = Array.from({ length: Math.min(STARTS_AT_ONCE, options.execs - n) }, (_, i) =>
      uwf(home, ["thread", "start", "hello", "-p", `Greet guest ${n + i}.`], env),
    );
    ids.push(...(await Promise.all(batch)));
  }
  await server.activity(url);
  const started = performance.now();
  const execs = await Promise.all(
    ids.map((id) =>
      runUwf(["thread", "exec", id, "--agent", MOCK], { home, env, timeoutMs: 600_000 }),
    ),
  );
  const wallS = (performance.now() - started) / 1000;
  const failed = execs.filter((exec) => exec.code !== 0).map((exec) => exec.stderr);
  const activity = await server.activity(url);
  console.log(
    `${options.execs} execs in flight, max_connections=${options.maxConnections}: ` +
      `${failed.length} failed, ${activity.refused} connection attempts refused for want of a ` +
      `slot, ${activity.connections} connections, ${activity.statements.length} statements, ` +
      `${wallS.toFixed(1)} s wall`,
  );
  expect(failed).toEqual([]);
  const list = JSON.parse(
    await uwf(home, ["thread", "list", "--format", "json", "--limit", "1000"], env),
  );
  expect(list.total).toBe(options.execs);
  const statuses = new Map(
    list.threads.map((t: { thread: string; status: string }) => [t.thread, t.status]),
  );
  expect(ids.map((id) => statuses.get(id))).toEqual(ids.map(() => "completed"));
}

describe("a PostgreSQL store under load", () => {
  const execs = HEAVY_EXECS || 64;

  it(`runs ${execs} execs at once on a server with PostgreSQL's default ${DEFAULT_MAX_CONNECTIONS} slots, with the default config`, async () => {
    await execsInFlight({ execs, maxConnections: DEFAULT_MAX_CONNECTIONS });
  }, 900_000);

  it(`runs ${execs} execs at once on a server with ${FEWEST_CONNECTIONS} connection slots`, async () => {
    // Enough attempts that a process waits out every other one on a slow, shared machine; the
    // default (8, about ten seconds of pauses) is sized for a server with a normal max_connections.
    await execsInFlight({
      execs,
      maxConnections: FEWEST_CONNECTIONS,
      config: "postgres:\n  connectAttempts: 60\n",
    });
  }, 900_000);
});
