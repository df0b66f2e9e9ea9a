import { readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { caught } from "../../store/src/__testing__/store-fixtures.js";
import { usePostgres } from "./__testing__/server.js";
import { connect, type Database } from "./connection.js";
import { openPostgresParts } from "./open.js";

const pg = usePostgres();

/** Tiny limits: a server that does not answer fails the test's command at once. */
const TINY = {
  connectTimeoutMs: 50,
  connectAttempts: 2,
  statementTimeoutMs: 50,
  lockTimeoutMs: 50,
} as const;
/** Limits no test waits out: only an abort can end the wait. */
const ENDLESS = {
  connectTimeoutMs: 600_000,
  connectAttempts: 1,
  statementTimeoutMs: 600_000,
  lockTimeoutMs: 600_000,
} as const;

/** A TCP listener that accepts connections and never says a word (a hung server). */
async function silentServer(): Promise<{ url: string; sockets: Socket[]; server: Server }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `postgres://uwf:s3cret@127.0.0.1:${port}/uwf`, sockets, server };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function closeSilent(silent: { sockets: Socket[]; server: Server }): void {
  cleanups.push(() => {
    for (const socket of silent.sockets) socket.destroy();
    return new Promise((resolve) => silent.server.close(resolve));
  });
}

function stopped(pid: number): void {
  process.kill(pid, "SIGSTOP");
  cleanups.push(() => {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // Gone already: the test's own abort closed its connection.
    }
  });
}

async function backendPid(db: Database): Promise<number> {
  const [row] = await db.query<{ pid: number }>("select pg_backend_pid() as pid");
  return row!.pid;
}

describe("a server that does not answer", () => {
  it("fails opening within the connect timeout, after the configured attempts", async () => {
    const silent = await silentServer();
    closeSilent(silent);
    const error = await caught(() => openPostgresParts(silent.url, { timeouts: TINY }));
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toBe(
      `cannot use the store at postgres://uwf:****@127.0.0.1:${new URL(silent.url).port}/uwf: the server did not accept a connection within 0.05 s (gave up after ${TINY.connectAttempts} attempts)`,
    );
    expect(error.hint).toContain("running, answering");
    expect(error.hint).toContain("`postgres:` in config.yaml");
    expect(silent.sockets).toHaveLength(TINY.connectAttempts);
  });

  it("fails a statement within the client's timeout when the backend stops answering", async () => {
    const db = await connect(await pg.migratedDatabase(), { timeouts: TINY });
    cleanups.push(() => db.close());
    const error = await caught(() =>
      db.withClient(async (sql) => {
        const [row] = await sql.query<{ pid: number }>("select pg_backend_pid() as pid");
        stopped(row!.pid);
        return sql.query("select 1");
      }),
    );
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain("the server did not answer a statement within 0.1 s");
  });

  it("fails opening within the connect timeout when the postmaster is stopped", async () => {
    const url = await pg.migratedDatabase();
    const postmaster = Number(
      readFileSync(join(pg.server().dir, "data", "postmaster.pid"), "utf8").split("\n")[0],
    );
    stopped(postmaster);
    const error = await caught(() => openPostgresParts(url, { timeouts: TINY }));
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain("the server did not accept a connection within 0.05 s");
  });

  it("ends a statement at statement_timeout", async () => {
    const db = await connect(await pg.migratedDatabase(), { timeouts: TINY });
    cleanups.push(() => db.close());
    const error = await caught(() => db.query("select pg_sleep(600)"));
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain("ran longer than 0.05 s");
    expect(error.hint).toContain("`postgres.statementTimeoutSeconds` in config.yaml");
  });

  it("ends a wait for a lock at lock_timeout", async () => {
    const url = await pg.migratedDatabase();
    const holder = await connect(url);
    const waiter = await connect(url, { timeouts: { ...TINY, statementTimeoutMs: 600_000 } });
    cleanups.push(
      () => holder.close(),
      () => waiter.close(),
    );
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = holder.transaction(async (sql) => {
      await sql.execute("lock table uwf_registry in access exclusive mode");
      locked();
      await held;
    });
    await isLocked;
    const error = await caught(() => waiter.query("select * from uwf_registry"));
    release();
    await holding;
    expect(error.code).toBe("STORE_UNAVAILABLE");
    expect(error.message).toContain("waited for a lock longer than 0.05 s");
    expect(error.hint).toContain("`postgres.lockTimeoutSeconds`");
  });
});

describe("an abort while waiting on the store", () => {
  it("ends a connection attempt at once", async () => {
    const silent = await silentServer();
    closeSilent(silent);
    const controller = new AbortController();
    const opening = caught(() =>
      openPostgresParts(silent.url, { timeouts: ENDLESS, signal: controller.signal }),
    );
    await vi.waitFor(() => expect(silent.sockets).toHaveLength(1));
    controller.abort("SIGINT");
    const error = await opening;
    expect(error.code).toBe("INTERRUPTED");
    expect(error.message).toContain(
      "interrupted while waiting for the store at postgres://uwf:****@",
    );
  });

  it("ends every pending wait, however many", async () => {
    const silent = await silentServer();
    closeSilent(silent);
    const controller = new AbortController();
    const db = await connect(silent.url, { timeouts: ENDLESS, signal: controller.signal });
    cleanups.push(() => db.close());
    const waits = Array.from({ length: 20 }, () => caught(() => db.query("select 1")));
    await vi.waitFor(() => expect(silent.sockets.length).toBeGreaterThan(0));
    controller.abort("SIGTERM");
    const errors = await Promise.all(waits);
    expect(errors.map((error) => error.code)).toEqual(Array(20).fill("INTERRUPTED"));
  });

  it("abandons the statement in flight and closes its connection", async () => {
    const url = await pg.migratedDatabase();
    const controller = new AbortController();
    const db = await connect(url, { timeouts: ENDLESS, signal: controller.signal });
    cleanups.push(() => db.close());
    const pid = await backendPid(db);
    stopped(pid);
    const querying = caught(() => db.query("select 1"));
    // The idle connection is handed over and the statement sent before the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort("SIGINT");
    const error = await querying;
    expect(error.code).toBe("INTERRUPTED");
    // What the interrupted command still asks (releasing its lease) gets a fresh connection.
    process.kill(pid, "SIGCONT");
    expect(await db.query<{ one: number }>("select 1 as one")).toEqual([{ one: 1 }]);
    expect(await backendPid(db)).not.toBe(pid);
  });
});
