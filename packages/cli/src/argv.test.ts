import { describe, expect, it } from "vitest";
import { expandShorthands } from "./argv.js";

describe("expandShorthands", () => {
  it("reads --json as --format json, wherever it stands", () => {
    expect(expandShorthands(["thread", "list", "--json"])).toEqual([
      "thread",
      "list",
      "--format",
      "json",
    ]);
    expect(expandShorthands(["--json", "usage"])).toEqual(["--format", "json", "usage"]);
    expect(expandShorthands(["usage", "--json", "--format", "json"])).toEqual([
      "usage",
      "--format",
      "json",
      "--format",
      "json",
    ]);
  });

  it("refuses --json beside another --format", () => {
    expect(() => expandShorthands(["usage", "--json", "--format=yaml"])).toThrow(
      "--json asks for JSON, --format for yaml",
    );
  });

  it("reads ls after a group as its list, and nothing else as a shorthand", () => {
    expect(expandShorthands(["--format", "json", "step", "ls", "01K"])).toEqual([
      "--format",
      "json",
      "step",
      "list",
      "01K",
    ]);
    // A thread id or task that happens to be `ls`, words after `--`, a group with no list.
    const untouched = [
      ["thread", "show", "ls"],
      ["thread", "start", "w", "--", "--json", "ls"],
      ["cas", "ls"],
      ["ls"],
    ];
    for (const argv of untouched) expect(expandShorthands(argv)).toBe(argv);
  });
});
