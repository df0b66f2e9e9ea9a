import { describe, expect, it } from "vitest";
import { editDistance, nearestWord } from "./edit-distance.js";

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

describe("nearestWord", () => {
  it("finds the nearest candidate within two edits, ignoring case", () => {
    expect(nearestWord("reviwer", ["writer", "reviewer"])).toBe("reviewer");
    expect(nearestWord("Aproved", ["approved", "rejected"])).toBe("approved");
  });

  it("suggests nothing far, nothing for a short word, and never the word itself", () => {
    expect(nearestWord("planner", ["reviewer"])).toBeUndefined();
    expect(nearestWord("ab", ["if"])).toBeUndefined();
    expect(nearestWord("done", ["done"])).toBeUndefined();
  });
});
