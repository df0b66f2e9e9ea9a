import { describe, expect, test } from "vitest";
import { parseResult, scriptArgv } from "./script-step.js";

describe("a script's stdout as its result", () => {
  test("a JSON object", () => {
    expect(parseResult('\n{"$status":"passed","count":3}\n')).toEqual({
      output: { $status: "passed", count: 3 },
      body: "",
    });
  });

  test("markdown with YAML frontmatter: the rest is the body", () => {
    expect(parseResult("---\n$status: failed\nfailures: 2\n---\n\n2 tests failed.\n")).toEqual({
      output: { $status: "failed", failures: 2 },
      body: "2 tests failed.",
    });
  });

  test("anything else is no result: the exit code decides", () => {
    expect(parseResult("ok 1 - adds\nok 2 - subtracts\n")).toBeNull();
    expect(parseResult("[1, 2]")).toBeNull();
    expect(parseResult("{ not json")).toBeNull();
    expect(parseResult("---\n- a list\n---\n")).toBeNull();
  });
});

describe("the argv a script role spawns", () => {
  test("a list as is; a string only through /bin/sh -c", () => {
    expect(scriptArgv({ frontmatter: "X", run: ["npm", "test"] })).toEqual(["npm", "test"]);
    expect(scriptArgv({ frontmatter: "X", run: "npm test | tee log", shell: true })).toEqual([
      "/bin/sh",
      "-c",
      "npm test | tee log",
    ]);
  });
});
