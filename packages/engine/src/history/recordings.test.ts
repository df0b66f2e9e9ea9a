import { describe, expect, it } from "vitest";
import { lineDifference } from "./recordings.js";

describe("lineDifference", () => {
  it("counts lines in one list and not the other, repeats included", () => {
    expect(lineDifference(["a", "b", "c"], ["a", "b", "c"])).toBe(0);
    expect(lineDifference(["a", "b", "c"], ["a", "x", "c"])).toBe(2);
    expect(lineDifference(["a", "a"], ["a"])).toBe(1);
    expect(lineDifference([], ["a", "b"])).toBe(2);
  });
});
