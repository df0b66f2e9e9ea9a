import { describe, expect, it } from "vitest";
import { maskSecret } from "./secret.js";

describe("maskSecret", () => {
  it("replaces every occurrence of the secret, and leaves text alone without one", () => {
    expect(maskSecret("bad key Bearer sk-1; again sk-1", "sk-1")).toBe(
      "bad key Bearer ****; again ****",
    );
    expect(maskSecret("no key here", null)).toBe("no key here");
    expect(maskSecret("empty key", "")).toBe("empty key");
  });
});
