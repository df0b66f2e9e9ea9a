import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { parseFlatYaml, stringifyFlatYaml } from "./flat-yaml.js";

const WORDS = [
  ...["greeting", "$status", "done", "needs-work", "_x", "a_b$", "x".repeat(120), "e3", "a-"],
  ...["yes", "no", "on", "off", "y", "N", "NaN", "inf", "Infinity", "__proto__", "constructor"],
  ...["true", "True", "TRUE", "tRUE", "false", "False", "FALSE", "null", "Null", "NULL", "nULL"],
  ...["~", "", "0", "-0", "+1", "007", "0x1F", "0o7", "1e3", "1.5", ".5", "-1", "42", "-"],
  ...["9007199254740991", "9007199254740992", "-9007199254740993", ".inf", ".nan", "<<"],
  ...["a:b", "a b", "'q'", '"q"', "#c", "a#b", "[1]", "{}", "&a", "*a", "!t", "|", ">", "é"],
  // Around the library's 80-column line width.
  ..."x"
    .repeat(20)
    .split("")
    .map((_, i) => "w".repeat(20 + i * 4)),
];

describe("parseFlatYaml", () => {
  it("reads every flat block the way the yaml library does, or leaves it to the library", () => {
    let fast = 0;
    for (const key of WORDS) {
      for (const value of WORDS) {
        for (const text of [`${key}: ${value}`, `${key}: ${value}\n`, `k: 1\n${key}: ${value}\n`]) {
          const mine = parseFlatYaml(text);
          if (mine === undefined) continue;
          fast++;
          expect(mine, JSON.stringify(text)).toEqual(parse(text));
          expect(Object.keys(mine), JSON.stringify(text)).toEqual(Object.keys(parse(text)));
        }
      }
    }
    // The words above that are plain on both sides: the fast path is really taken.
    expect(fast).toBeGreaterThan(1000);
    expect(
      parseFlatYaml("$status: done\ngreeting: hi\nattempts: 2\nok: true\nnote: null\n"),
    ).toEqual({ $status: "done", greeting: "hi", attempts: 2, ok: true, note: null });
  });

  it("leaves everything but plain key: value lines to the library", () => {
    for (const text of [
      "",
      "\n",
      "a: b\n\nc: d",
      "a: b # note",
      "a:  b",
      "a: b ",
      " a: b",
      "a:b",
      "a:",
      "a: 'b'",
      "a: [1]",
      "a:\n  b: c",
      "- a",
      "a: b\na: c",
      "true: x",
      "__proto__: x",
      "%YAML 1.1\n---\na: yes",
      "a: 1.5",
      "a: 007",
      "a: -0",
      "a: 9007199254740992",
    ]) {
      expect(parseFlatYaml(text), JSON.stringify(text)).toBeUndefined();
    }
  });
});

describe("stringifyFlatYaml", () => {
  it("writes flat mappings exactly as the yaml library does, and reads them back", () => {
    const values: unknown[] = [...WORDS, 0, -0, 1, -1, 42, 2 ** 53, 1.5, Number.NaN, true, false];
    values.push(null, [], ["a"], {}, { a: 1 }, undefined);
    let fast = 0;
    for (const key of WORDS) {
      for (const value of values) {
        const object: Record<string, unknown> = { $status: "done" };
        Object.defineProperty(object, key, { value, enumerable: true, writable: true });
        const mine = stringifyFlatYaml(object);
        if (mine === undefined) continue;
        fast++;
        expect(mine, JSON.stringify([key, value])).toBe(stringify(object));
        expect(parseFlatYaml(mine)).toEqual(object);
      }
    }
    expect(fast).toBeGreaterThan(200);
    expect(stringifyFlatYaml({ $status: "done", greeting: "hi" })).toBe(
      "$status: done\ngreeting: hi\n",
    );
  });

  it("leaves nested, quoted and empty mappings to the library", () => {
    expect(stringifyFlatYaml({})).toBeUndefined();
    expect(stringifyFlatYaml({ a: "two words" })).toBeUndefined();
    expect(stringifyFlatYaml({ a: { b: 1 } })).toBeUndefined();
    expect(stringifyFlatYaml({ a: "true" })).toBeUndefined();
    expect(stringifyFlatYaml({ a: undefined })).toBeUndefined();
    expect(stringifyFlatYaml(new Map() as unknown as Record<string, unknown>)).toBeUndefined();
  });
});
