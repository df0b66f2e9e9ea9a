import { describe, expect, it } from "vitest";
import { backoffDelay, requestedDelay } from "./retry.js";

const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1_000 };

describe("backoffDelay", () => {
  it("doubles from the base delay and stops at the maximum", () => {
    const full = () => 1;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, full))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });

  it("jitters between half and all of the delay", () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(200);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(300);
  });
});

describe("requestedDelay", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it("reads retry-after-ms first, then Retry-After in seconds or as an HTTP date", () => {
    expect(requestedDelay(headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(
      1_500,
    );
    expect(requestedDelay(headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(requestedDelay(headers({ "retry-after": "0.25" }), now)).toBe(250);
    const date = new Date(now + 3_000).toUTCString();
    expect(requestedDelay(headers({ "retry-after": date }), now)).toBe(3_000);
    expect(
      requestedDelay(headers({ "retry-after": new Date(now - 5_000).toUTCString() }), now),
    ).toBe(0);
  });

  it("is null when there is no header or it cannot be read", () => {
    expect(requestedDelay(headers({}), now)).toBeNull();
    expect(requestedDelay(headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(requestedDelay(headers({ "retry-after": "-3" }), now)).toBeNull();
    expect(requestedDelay(headers({ "retry-after-ms": "x", "retry-after": "1" }), now)).toBe(1_000);
  });
});
