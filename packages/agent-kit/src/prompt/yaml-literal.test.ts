import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { yamlLiteral } from "./yaml-literal.js";

describe("yamlLiteral", () => {
  it("writes every value exactly as the yaml library does", () => {
    const values: unknown[] = [
      ...["greeting", "$status", "done", "needs-work", "_x", "a_b$", "x".repeat(120), "e3"],
      ...["yes", "no", "on", "off", "y", "N", "NaN", "inf", "Infinity"],
      ...["true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~"],
      ...["", " ", "0x1", "1e3", "123", "-a", "x.y", "a:b", "a b", "<<", "é", "line\nbreak"],
      ...[0, -0, 1, -1, 42, 2 ** 53, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY],
      ...[true, false, null, [], ["a"], {}, { a: 1 }],
    ];
    for (const value of values) {
      expect(yamlLiteral(value), JSON.stringify(value)).toBe(stringify(value).trimEnd());
    }
  });
});
