import { describe, expect, it } from "vitest";
import { editDistance } from "./edit-distance.js";

describe("editDistance", () => {
  it("counts insertions, deletions and substitutions", () => {
    expect(editDistance("", "")).toBe(0);
    expect(editDistance("required", "required")).toBe(0);
    expect(editDistance("requird", "required")).toBe(1);
    expect(editDistance("", "type")).toBe(4);
    expect(editDistance("kitten", "sitting")).toBe(3);
  });

  it("counts a swap of two neighbours as one edit", () => {
    expect(editDistance("tyep", "type")).toBe(1);
    expect(editDistance("minLenght", "minLength")).toBe(1);
    expect(editDistance("!incldue", "!include")).toBe(1);
    expect(editDistance("tyep", "then")).toBe(2);
  });
});
