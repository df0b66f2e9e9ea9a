import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { searchTool } from "./search.js";
import { Workspace } from "./workspace.js";

let temp: TempHome;
let root: string;
let ws: Workspace;
beforeEach(() => {
  temp = tempHome();
  root = join(temp.home, "work");
  for (const dir of ["src/lib", "node_modules/dep", ".git"])
    mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, "src/a.ts"), "export const TODO = 1;\n// todo later\n");
  writeFileSync(join(root, "src/lib/b.ts"), "function todo() {}\n// TODO: b\n");
  writeFileSync(join(root, "node_modules/dep/index.js"), "// TODO in a dependency\n");
  writeFileSync(join(root, ".git/config"), "TODO\n");
  writeFileSync(join(root, "blob.bin"), Buffer.from("TODO\0binary"));
  ws = new Workspace(root);
});
afterEach(() => temp.cleanup());

describe("search", () => {
  it("finds a substring in the files under the directory, as file:line: text", () => {
    expect(searchTool(ws, { pattern: "TODO" })).toBe(
      "src/a.ts:1: export const TODO = 1;\nsrc/lib/b.ts:2: // TODO: b",
    );
  });

  it("takes a regular expression and a narrower path", () => {
    expect(searchTool(ws, { pattern: "^function \\w+", regex: true, path: "src" })).toBe(
      "src/lib/b.ts:1: function todo() {}",
    );
    expect(searchTool(ws, { pattern: "todo", path: "src/a.ts" })).toBe("src/a.ts:2: // todo later");
    expect(() => searchTool(ws, { pattern: "(", regex: true })).toThrow(
      `"pattern" is not a valid regular expression`,
    );
  });

  it("bounds the matches and says so", () => {
    expect(searchTool(ws, { pattern: "o", max_results: 2 }).split("\n")).toEqual([
      "src/a.ts:1: export const TODO = 1;",
      "src/a.ts:2: // todo later",
      "[more matches left out: narrow the search or raise max_results]",
    ]);
  });

  it("does not follow symbolic links out of the working directory", () => {
    const outside = join(temp.home, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "TODO secret");
    symlinkSync(outside, join(root, "out"));
    symlinkSync(join(outside, "secret.txt"), join(root, "secret-link.txt"));
    expect(searchTool(ws, { pattern: "secret" })).toBe(`no matches for "secret" in .`);
    expect(() => searchTool(ws, { pattern: "x", path: "out" })).toThrow(
      "is outside the working directory",
    );
  });
});
