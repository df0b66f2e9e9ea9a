import { describe, expect, it } from "vitest";
import { formatElapsed } from "./format.js";

describe("formatElapsed", () => {
  it("ticks in whole seconds, then minutes, then hours", () => {
    expect(formatElapsed(999)).toBe("0s");
    expect(formatElapsed(59_999)).toBe("59s");
    expect(formatElapsed(60_000)).toBe("1m00s");
    expect(formatElapsed(3_723_000)).toBe("1h02m");
  });
});
