import { type PostgresServer, startPostgres } from "@united-workforce/test-utils";
import { afterAll, beforeAll } from "vitest";
import { connect, type Database } from "../connection.js";
import { migrate } from "../migrate.js";

export interface TestPostgres {
  /** The server (after beforeAll). */
  server(): PostgresServer;
  /** A fresh empty database on it. */
  database(): Promise<string>;
  /** A fresh database with uwf's tables, and a connection to it closed after the file. */
  migrated(): Promise<{ url: string; db: Database }>;
  /** A fresh database with uwf's tables (copied from a migrated template: faster). */
  migratedDatabase(): Promise<string>;
}

/**
 * One real PostgreSQL server per test file (started in beforeAll, stopped in afterAll even when
 * tests fail); each test takes its own database from it.
 */
export function usePostgres(): TestPostgres {
  let server: PostgresServer | undefined;
  const connections: Database[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  // Generous: removing a server's folder is slow on a machine busy writing to disk.
  afterAll(async () => {
    await Promise.all(connections.map((db) => db.close()));
    await server?.stop();
  }, 120_000);
  const running = () => {
    if (server === undefined)
      throw new Error("the PostgreSQL server did not start (see beforeAll)");
    return server;
  };
  let template: Promise<string> | undefined;
  const migratedTemplate = () => {
    template ??= (async () => {
      const url = await running().createDatabase();
      const db = await connect(url);
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      return new URL(url).pathname.slice(1);
    })();
    return template;
  };
  return {
    server: running,
    async migratedDatabase() {
      return running().createDatabase({ template: await migratedTemplate() });
    },
    database: () => running().createDatabase(),
    async migrated() {
      const url = await running().createDatabase({ template: await migratedTemplate() });
      const db = await connect(url);
      connections.push(db);
      return { url, db };
    },
  };
}
