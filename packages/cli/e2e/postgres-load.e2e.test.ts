import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  startPostgres,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * More `uwf thread exec` processes than the server has connection slots: those refused at first
 * ("too many clients", 53300) wait and try again, and every one completes.
 */

const MOCK = `uwf-mock --scenario ${join(REPO_ROOT, "examples/scenarios/hello.yaml")}`;
const HELLO = join(REPO_ROOT, "examples/hello.yaml");
const EXECS = 24;
/** The least PostgreSQL accepts (more than its 3 reserved slots, which the superuser may use). */
const MAX_CONNECTIONS = 4;

let server: PostgresServer;
let home: string;
beforeAll(async () => {
  server = await startPostgres({ maxConnections: MAX_CONNECTIONS });
  home = mkdtempSync(join(tmpdir(), "uwf-pg-load-"));
  // Enough attempts that a process waits out every other one on a slow, shared machine; the
  // default (8, about ten seconds of pauses) is sized for a server with a normal max_connections.
  writeFileSync(join(home, "config.yaml"), "postgres:\n  connectAttempts: 60\n", {
    mode: 0o600,
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

async function uwf(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runUwf(args, { home, env, timeoutMs: 240_000 });
  if (result.code !== 0) {
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  }
  return result.stdout.trim();
}

describe("a PostgreSQL store under load", () => {
  it(`runs ${EXECS} execs at once on a server with ${MAX_CONNECTIONS} connection slots`, async () => {
    const env = { UWF_STORE: await server.createDatabase() };
    await uwf(["workflow", "add", HELLO], env);
    const ids: string[] = [];
    for (let n = 0; n < EXECS; n++) {
      ids.push(await uwf(["thread", "start", "hello", "-p", `Greet guest ${n}.`], env));
    }
    const execs = await Promise.all(
      ids.map((id) =>
        runUwf(["thread", "exec", id, "--agent", MOCK], { home, env, timeoutMs: 240_000 }),
      ),
    );
    const failed = execs.filter((exec) => exec.code !== 0).map((exec) => exec.stderr);
    expect(failed).toEqual([]);
    const list = JSON.parse(
      await uwf(["thread", "list", "--format", "json", "--limit", "100"], env),
    );
    expect(list.total).toBe(EXECS);
    expect(list.threads.map((t: { status: string }) => t.status)).toEqual(
      ids.map(() => "completed"),
    );
  }, 300_000);
});
