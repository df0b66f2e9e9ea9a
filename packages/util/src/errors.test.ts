import { describe, expect, it } from "vitest";
import { isUwfError, UwfError } from "./errors.js";

describe("isUwfError", () => {
  it("recognises an error made by another copy of this package", async () => {
    // A backend package loaded beside a bundled binary brings its own copy of util.
    const copy = "./errors.js?another-copy";
    const other: typeof import("./errors.js") = await import(/* @vite-ignore */ copy);
    expect(other.UwfError).not.toBe(UwfError);
    const error = new other.UwfError("STORE_UNAVAILABLE", "cannot use the store");
    expect(error instanceof UwfError).toBe(false);
    expect(isUwfError(error)).toBe(true);
  });

  it("refuses other errors and values", () => {
    expect(isUwfError(new Error("plain"))).toBe(false);
    expect(isUwfError(Object.assign(new Error("coded"), { code: "IO" }))).toBe(false);
    expect(isUwfError(null)).toBe(false);
    expect(isUwfError("IO")).toBe(false);
  });
});
