import { describe, expect, it } from "vitest";
import { splitReport } from "./warm-child.js";

describe("splitReport", () => {
  const mark = Buffer.from(`\0uwf-exit ${"a".repeat(32)} `);
  const split = (text: string) => {
    const { pass, hold, code } = splitReport(Buffer.from(text, "latin1"), mark);
    return { pass: pass.toString("latin1"), hold: hold.toString("latin1"), code };
  };
  const report = `\0uwf-exit ${"a".repeat(32)} `;

  it("finds a whole report after the output, and drops what follows it", () => {
    expect(split(`out\n${report}75\nafter`)).toEqual({ pass: "out\n", hold: "", code: 75 });
  });

  it("holds back what may be the report's beginning, and only that", () => {
    expect(split(`out${report.slice(0, 5)}`)).toEqual({
      pass: "out",
      hold: report.slice(0, 5),
      code: null,
    });
    expect(split(`out${report}1`)).toEqual({ pass: "out", hold: `${report}1`, code: null });
  });

  it("passes on NUL bytes and look-alikes that cannot be the report", () => {
    expect(split("a\0b\0")).toEqual({ pass: "a\0b", hold: "\0", code: null });
    expect(split("a\0x")).toEqual({ pass: "a\0x", hold: "", code: null });
    expect(split(`${report}12x\n`)).toEqual({ pass: `${report}12x\n`, hold: "", code: null });
    expect(split(`${report}256\n`)).toEqual({ pass: `${report}256\n`, hold: "", code: null });
  });
});
