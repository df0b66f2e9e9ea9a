import { describe, expect, it } from "vitest";
import { lineDifference, withoutThreadIds } from "./recordings.js";

describe("lineDifference", () => {
  it("counts lines in one list and not the other, repeats included", () => {
    expect(lineDifference(["a", "b", "c"], ["a", "b", "c"])).toBe(0);
    expect(lineDifference(["a", "b", "c"], ["a", "x", "c"])).toBe(2);
    expect(lineDifference(["a", "a"], ["a"])).toBe(1);
    expect(lineDifference([], ["a", "b"])).toBe(2);
  });
});

describe("withoutThreadIds", () => {
  it("replaces every thread id with one placeholder, and nothing else", () => {
    const a =
      'results: [{"thread":"01M954JS86C4EA581DS3J1WF4W"},{"thread":"01M954JS87YSKZASQ0BE85RXBH"}]';
    const b =
      'results: [{"thread":"01M954KGDD68B98P6FKTB8MVZV"},{"thread":"01M954KGDESQM8YYC9ARF98JCN"}]';
    expect(withoutThreadIds(a)).toBe(withoutThreadIds(b));
    expect(withoutThreadIds(a)).toBe('results: [{"thread":"<thread>"},{"thread":"<thread>"}]');
    // A step hash (13 characters) and ordinary words stay.
    expect(withoutThreadIds("step 07BHW8A1435C8 in THREADSANDWORDSTHATARELONG")).toBe(
      "step 07BHW8A1435C8 in THREADSANDWORDSTHATARELONG",
    );
  });
});
