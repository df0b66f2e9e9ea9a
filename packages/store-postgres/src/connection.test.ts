import { type PostgresServer, startPostgres } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "./connection.js";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres({ countStatements: true });
}, 60_000);
afterAll(async () => {
  await server?.stop();
}, 120_000);

describe("the connection pool", () => {
  it("keeps one connection between statements: one opened for an overlap is closed after it", async () => {
    const url = await server.createDatabase();
    const db = await connect(url);
    try {
      await server.activity(url);
      for (let overlap = 0; overlap < 3; overlap++) {
        await db.transaction(async (sql) => {
          await sql.query("select 1");
          // The transaction holds one connection: this statement needs another.
          await db.query("select 2");
        });
      }
      // The first connection stays for the next statement; each overlap opens its second
      // afresh, as the one before was closed rather than kept idle, holding a server slot.
      expect((await server.activity(url)).connections).toBe(4);
    } finally {
      await db.close();
    }
  });

  it("turns JIT off: compiling an over-costed recursive walk took longer than running it", async () => {
    const db = await connect(await server.createDatabase());
    try {
      expect(await db.query<{ jit: string }>("show jit")).toEqual([{ jit: "off" }]);
    } finally {
      await db.close();
    }
  });
});
