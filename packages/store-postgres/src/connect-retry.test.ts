import { describe, expect, it } from "vitest";
import {
  FIRST_RETRY_PAUSE_MS,
  isTransientConnectError,
  MAX_RETRY_PAUSE_MS,
  retryConnect,
  retryPauseMs,
} from "./connect-retry.js";

function failure(code: string | undefined, message = "failed"): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

describe("isTransientConnectError", () => {
  it.each([
    ["a refused connection", failure("ECONNREFUSED")],
    ["a reset connection", failure("ECONNRESET")],
    ["a socket timeout", failure("ETIMEDOUT")],
    ["too many connections (53300)", failure("53300", "sorry, too many clients already")],
    ["a server starting up (57P03)", failure("57P03", "the database system is starting up")],
    ["the driver's connect timeout", failure(undefined, "timeout expired")],
    ["the pool's connect timeout", failure(undefined, "timeout exceeded when trying to connect")],
    ["a connection dropped while made", failure(undefined, "Connection terminated unexpectedly")],
  ])("retries %s", (_, error) => {
    expect(isTransientConnectError(error)).toBe(true);
  });

  it.each([
    ["bad credentials (28P01)", failure("28P01", "password authentication failed")],
    ["no such role (28000)", failure("28000")],
    ["a missing database (3D000)", failure("3D000", 'database "x" does not exist')],
    ["an unknown host", failure("ENOTFOUND")],
    ["a driver error with no code", failure(undefined, "SASL: client password must be a string")],
    ["a non-error", "boom"],
  ])("never retries %s", (_, error) => {
    expect(isTransientConnectError(error)).toBe(false);
  });
});

describe("retryPauseMs", () => {
  it("doubles from the first pause, between half and all of each step", () => {
    const low = [1, 2, 3, 4].map((n) => retryPauseMs(n, MAX_RETRY_PAUSE_MS, () => 0));
    const high = [1, 2, 3, 4].map((n) => retryPauseMs(n, MAX_RETRY_PAUSE_MS, () => 0.999_999));
    expect(low).toEqual([125, 250, 500, 1000]);
    expect(high).toEqual([250, 500, 1000, 2000]);
  });

  it("never exceeds the cap, however many attempts", () => {
    expect(retryPauseMs(30, MAX_RETRY_PAUSE_MS, () => 0.999_999)).toBe(MAX_RETRY_PAUSE_MS);
    expect(retryPauseMs(30, 80, () => 0.999_999)).toBe(80);
    expect(retryPauseMs(1, 80, () => 0)).toBe(40);
    expect(FIRST_RETRY_PAUSE_MS).toBeLessThanOrEqual(MAX_RETRY_PAUSE_MS);
  });
});

/** A retry run with a recorded clock: pauses are noted, never waited. */
function harness(failures: unknown[], options: { attempts: number; abortAfterPause?: number }) {
  const pauses: number[] = [];
  const controller = new AbortController();
  let calls = 0;
  const run = retryConnect(
    async () => {
      calls++;
      const error = failures.shift();
      if (error !== undefined) throw error;
      return "connected";
    },
    {
      attempts: options.attempts,
      maxPauseMs: MAX_RETRY_PAUSE_MS,
      signal: controller.signal,
      interrupted: () => new Error("interrupted"),
      giveUp: (error, attempts) => new Error(`gave up after ${attempts}: ${String(error)}`),
      random: () => 0.5,
      sleep: async (ms) => {
        pauses.push(ms);
        if (pauses.length === options.abortAfterPause) controller.abort();
      },
    },
  );
  return { run, pauses, calls: () => calls };
}

describe("retryConnect", () => {
  it("retries transient failures with growing pauses until one attempt connects", async () => {
    const refused = failure("ECONNREFUSED");
    const { run, pauses, calls } = harness([refused, failure("53300"), refused], {
      attempts: 8,
    });
    await expect(run).resolves.toBe("connected");
    expect(calls()).toBe(4);
    expect(pauses).toEqual([188, 375, 750]);
  });

  it("gives up after the configured attempts, naming how many were made", async () => {
    const refused = failure("ECONNREFUSED", "connect ECONNREFUSED");
    const { run, pauses, calls } = harness([refused, refused, refused, refused], {
      attempts: 3,
    });
    await expect(run).rejects.toThrow("gave up after 3: Error: connect ECONNREFUSED");
    expect(calls()).toBe(3);
    expect(pauses).toHaveLength(2);
  });

  it("fails at once on an error that will not pass", async () => {
    const { run, pauses, calls } = harness([failure("28P01", "password authentication failed")], {
      attempts: 8,
    });
    await expect(run).rejects.toThrow("gave up after 1: Error: password authentication failed");
    expect(calls()).toBe(1);
    expect(pauses).toEqual([]);
  });

  it("stops at once when aborted during a pause", async () => {
    const refused = failure("ECONNREFUSED");
    const { run, calls } = harness([refused, refused, refused], {
      attempts: 8,
      abortAfterPause: 1,
    });
    await expect(run).rejects.toThrow("interrupted");
    expect(calls()).toBe(1);
  });

  it("makes one attempt when told fewer than one", async () => {
    const { run, calls } = harness([failure("ECONNREFUSED")], { attempts: 0 });
    await expect(run).rejects.toThrow("gave up after 1");
    expect(calls()).toBe(1);
  });
});
