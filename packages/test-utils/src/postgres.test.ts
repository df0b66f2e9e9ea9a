import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { findPostgresBin, type PostgresServer, startPostgres } from "./postgres.js";

const run = promisify(execFile);

async function psql(url: string, sql: string): Promise<string> {
  const { bin } = findPostgresBin();
  const { stdout } = await run(join(bin, "psql"), ["-X", "-At", url, "-c", sql]);
  return stdout.trim();
}

describe("startPostgres", () => {
  const started: PostgresServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.stop()));
  });

  it("runs a real server on 127.0.0.1 with a fresh database per call", async () => {
    const server = await startPostgres();
    started.push(server);
    expect(server.url).toBe(`postgres://uwf@127.0.0.1:${server.port}/postgres`);
    expect(await psql(server.url, "show fsync")).toBe("off");
    expect(await psql(server.url, "show listen_addresses")).toBe("127.0.0.1");
    const first = await server.createDatabase();
    const second = await server.createDatabase();
    expect(first).not.toBe(second);
    await psql(first, "create table t (x int)");
    expect(await psql(second, "select count(*) from pg_tables where tablename = 't'")).toBe("0");
    await server.dropDatabase(first);
    await expect(psql(first, "select 1")).rejects.toThrow(/does not exist/);
    await expect(server.dropDatabase(server.url)).rejects.toThrow(/not made by createDatabase/);
  });

  it("stop ends the server and removes its folder", async () => {
    const server = await startPostgres();
    expect(existsSync(join(server.dir, "data", "PG_VERSION"))).toBe(true);
    await server.stop();
    await server.stop();
    expect(existsSync(server.dir)).toBe(false);
    await expect(psql(server.url, "select 1")).rejects.toThrow();
  });

  it("fails, never skips, when the binaries are missing", async () => {
    const saved = process.env.UWF_TEST_PG_BIN;
    process.env.UWF_TEST_PG_BIN = "/nonexistent/bin";
    try {
      await expect(startPostgres()).rejects.toThrow(
        /PostgreSQL server binaries not found \(looked for \/nonexistent\/bin\/initdb\)/,
      );
    } finally {
      if (saved === undefined) delete process.env.UWF_TEST_PG_BIN;
      else process.env.UWF_TEST_PG_BIN = saved;
    }
  });
});
