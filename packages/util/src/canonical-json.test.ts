import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";

describe("canonicalJson", () => {
  it("sorts keys at every level and drops whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: "x" } })).toBe(
      '{"a":{"c":"x","d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("gives equal bytes for equal values built in different orders", () => {
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
  });

  it("drops undefined members and writes undefined array items as null", () => {
    expect(canonicalJson({ a: undefined, b: [undefined, 1] })).toBe('{"b":[null,1]}');
  });

  it("refuses values JSON cannot hold", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/non-finite/);
    expect(() => canonicalJson(10n)).toThrow(/bigint/);
    expect(() => canonicalJson(undefined)).toThrow(/not representable/);
  });

  it("escapes strings like JSON.stringify", () => {
    expect(canonicalJson({ 'k"': "line\nbreak \u2028" })).toBe(
      JSON.stringify({ 'k"': "line\nbreak \u2028" }),
    );
  });
});
