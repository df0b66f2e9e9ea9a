import { type PostgresServer, startPostgres } from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, describe, it } from "vitest";
import { type SteerLive, steerBuiltinMidRun, steerLive } from "./fixtures/steer-live.js";

/**
 * `thread steer` with the store in PostgreSQL: the steer's compare-and-swap, the running
 * agent's look at the thread through the store uwf serves it (no connection of its own), the
 * step's write that drops the note it took, and the next step taking the one left.
 */
let server: PostgresServer;
let sb: SteerLive | undefined;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await sb?.cleanup();
});

describe("thread steer on a PostgreSQL store", () => {
  it("reaches the running built-in agent once, and leaves a later note for the next step", async () => {
    sb = await steerLive({ UWF_STORE: await server.createDatabase() });
    await steerBuiltinMidRun(sb);
  }, 120_000);
});
