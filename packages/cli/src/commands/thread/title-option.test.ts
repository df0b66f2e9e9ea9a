import { describe, expect, it } from "vitest";
import { givenTitle } from "./title-option.js";

describe("givenTitle", () => {
  it("keeps a title trimmed, and no title as none", () => {
    expect(givenTitle("  Fix login  ")).toBe("Fix login");
    expect(givenTitle(undefined)).toBeUndefined();
  });

  it.each([
    ["", "is empty"],
    ["x".repeat(201), "longer than 200"],
    ["two\nlines", "invisible or control character (U+"],
    ["done\u200b", "invisible or control character (U+"],
    ["\u202eevil", "invisible or control character (U+"],
  ])("refuses %j", (title, message) => {
    expect(() => givenTitle(title)).toThrow(message);
  });
});
