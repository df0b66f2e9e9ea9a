import { describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { flatYaml, renderAnswer } from "./render.js";

const WORDS = [
  "done",
  "needs_changes",
  "$status",
  "_x",
  "a-b",
  "Yes",
  "no",
  "on",
  "OFF",
  "y",
  "NaN",
  "Infinity",
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
  "1st",
  "-x",
  ".inf",
  "~",
  "a b",
  "x:y",
  "#x",
  "",
  "é",
  "x".repeat(120),
  ...[20, 28, 29, 30, 31, 38, 39, 40, 41, 50, 57, 58, 59, 60, 70, 77, 78, 79, 80].map((n) =>
    "w".repeat(n),
  ),
];
const VALUES: unknown[] = [...WORDS, true, false, null, 0, 7, -3, 2 ** 53, -0, 1.5, [], {}, ["a"]];

describe("renderAnswer", () => {
  test("a flat mapping of simple values is written exactly as the yaml library writes it", () => {
    let fast = 0;
    for (const key of WORDS) {
      for (const value of VALUES) {
        const answer = { [key]: value, $status: "done" };
        expect(renderAnswer(answer, "body")).toBe(`---\n${stringify(answer)}---\nbody`);
        if (flatYaml(answer) !== null) fast++;
      }
    }
    // The fast path is taken for most of them (plain words, booleans, null, integers).
    expect(fast).toBeGreaterThan(200);
    expect(flatYaml({ $status: "done", greeting: "hi" })).toBe("$status: done\ngreeting: hi\n");
  });

  test("nested values, empty mappings and strings go through the library or as written", () => {
    expect(flatYaml({})).toBeNull();
    expect(flatYaml({ a: { b: 1 } })).toBeNull();
    expect(renderAnswer({})).toBe(`---\n${stringify({})}---\n`);
    expect(renderAnswer({ a: { b: [1, "x y"] } })).toBe(
      `---\n${stringify({ a: { b: [1, "x y"] } })}---\n`,
    );
    expect(renderAnswer("---\nraw\n---\n")).toBe("---\nraw\n---\n");
  });
});
