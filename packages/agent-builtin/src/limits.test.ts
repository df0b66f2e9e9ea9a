import { describe, expect, it } from "vitest";
import { readLimits } from "./limits.js";

describe("readLimits", () => {
  it("has defaults for every limit", () => {
    expect(readLimits({})).toEqual({
      maxTurns: 50,
      maxMs: 1_500_000,
      maxOutputBytes: 20_000,
      requestTimeoutMs: 300_000,
      commandTimeoutMs: 120_000,
      retry: { attempts: 5, baseDelayMs: 1_000, maxDelayMs: 60_000 },
      runCommand: true,
    });
  });

  it("reads the flags", () => {
    expect(
      readLimits({
        "max-turns": "3",
        "max-seconds": "2.5",
        "max-output-bytes": "1000",
        "request-timeout": "10",
        "command-timeout": "5",
        retries: "0",
        "no-run-command": true,
      }),
    ).toEqual({
      maxTurns: 3,
      maxMs: 2_500,
      maxOutputBytes: 1_000,
      requestTimeoutMs: 10_000,
      commandTimeoutMs: 5_000,
      retry: { attempts: 1, baseDelayMs: 1_000, maxDelayMs: 60_000 },
      runCommand: false,
    });
  });

  it("refuses a bad value as a usage error naming the flag", () => {
    expect(() => readLimits({ "max-turns": "0" })).toThrow(
      `option "--max-turns" must be a number ≥ 1, got "0"`,
    );
    expect(() => readLimits({ "max-turns": "2.5" })).toThrow(
      `option "--max-turns" must be a whole number, got "2.5"`,
    );
    expect(() => readLimits({ "max-seconds": "soon" })).toThrow(
      `option "--max-seconds" must be a number`,
    );
  });
});
