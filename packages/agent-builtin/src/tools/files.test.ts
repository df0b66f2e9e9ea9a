import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool, listDirTool, readFileTool, writeFileTool } from "./files.js";
import { Workspace } from "./workspace.js";

let temp: TempHome;
let root: string;
let ws: Workspace;
beforeEach(() => {
  temp = tempHome();
  root = join(temp.home, "work");
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "notes.md"), "one\ntwo\nthree\n");
  ws = new Workspace(root);
});
afterEach(() => temp.cleanup());

describe("read_file", () => {
  it("reads a file whole or a range of lines", () => {
    expect(readFileTool(ws, { path: "notes.md" })).toBe("one\ntwo\nthree\n");
    expect(readFileTool(ws, { path: "notes.md", start_line: 2, line_count: 1 })).toBe("two");
    expect(readFileTool(ws, { path: "notes.md", start_line: 3 })).toBe("three\n");
  });

  it("says what is wrong with a missing file, a directory, a binary file or a bad range", () => {
    expect(() => readFileTool(ws, { path: "nope.md" })).toThrow("nope.md does not exist");
    expect(() => readFileTool(ws, { path: "src" })).toThrow("src is a directory: use list_dir");
    writeFileSync(join(root, "image.bin"), Buffer.from([1, 0, 2]));
    expect(() => readFileTool(ws, { path: "image.bin" })).toThrow(
      "image.bin is a binary file (3 bytes)",
    );
    expect(() => readFileTool(ws, { path: "notes.md", start_line: 9 })).toThrow("has 4 lines");
    expect(() => readFileTool(ws, { path: "notes.md", start_line: 0 })).toThrow(
      `"start_line" must be a whole number ≥ 1`,
    );
  });

  it("refuses a file outside the working directory", () => {
    writeFileSync(join(temp.home, "secret.txt"), "secret");
    expect(() => readFileTool(ws, { path: "../secret.txt" })).toThrow(
      "is outside the working directory",
    );
  });
});

describe("write_file", () => {
  it("creates the file and its parent folders", () => {
    expect(writeFileTool(ws, { path: "docs/plan/plan.md", content: "# Plan\n" })).toBe(
      "wrote 7 bytes to docs/plan/plan.md",
    );
    expect(readFileSync(join(root, "docs/plan/plan.md"), "utf8")).toBe("# Plan\n");
  });

  it("overwrites a file, and refuses a directory or a missing content", () => {
    writeFileTool(ws, { path: "notes.md", content: "new" });
    expect(readFileSync(join(root, "notes.md"), "utf8")).toBe("new");
    expect(() => writeFileTool(ws, { path: "src", content: "x" })).toThrow("src is a directory");
    expect(() => writeFileTool(ws, { path: "x.md" })).toThrow(`"content" must be a string`);
  });

  it("never writes through a symbolic link that leads outside", () => {
    const outside = join(temp.home, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(root, "out"));
    symlinkSync(join(outside, "target.txt"), join(root, "dangling.txt"));
    expect(() => writeFileTool(ws, { path: "out/x.txt", content: "x" })).toThrow("outside");
    expect(() => writeFileTool(ws, { path: "dangling.txt", content: "x" })).toThrow("outside");
    expect(() => readFileSync(join(outside, "target.txt"))).toThrow();
  });
});

describe("edit_file", () => {
  it("replaces the one exact occurrence", () => {
    expect(editFileTool(ws, { path: "notes.md", old_string: "two\n", new_string: "2\n" })).toBe(
      "replaced 1 occurrence in notes.md",
    );
    expect(readFileSync(join(root, "notes.md"), "utf8")).toBe("one\n2\nthree\n");
  });

  it("refuses a text that is missing or not unique, and leaves the file alone", () => {
    writeFileSync(join(root, "dup.txt"), "x = 1\nx = 1\naaa\n");
    expect(() => editFileTool(ws, { path: "dup.txt", old_string: "y", new_string: "z" })).toThrow(
      `"old_string" was not found in dup.txt`,
    );
    expect(() =>
      editFileTool(ws, { path: "dup.txt", old_string: "x = 1", new_string: "z" }),
    ).toThrow(`"old_string" occurs 2 times in dup.txt: include more of the surrounding text`);
    expect(() => editFileTool(ws, { path: "dup.txt", old_string: "aa", new_string: "b" })).toThrow(
      "occurs 2 times",
    );
    expect(() => editFileTool(ws, { path: "dup.txt", old_string: "", new_string: "b" })).toThrow(
      "must not be empty",
    );
    expect(readFileSync(join(root, "dup.txt"), "utf8")).toBe("x = 1\nx = 1\naaa\n");
  });
});

describe("list_dir", () => {
  it("lists entries sorted, marking folders and links", () => {
    symlinkSync(join(root, "notes.md"), join(root, "link.md"));
    expect(listDirTool(ws, {})).toBe("link.md@\nnotes.md\nsrc/");
    expect(listDirTool(ws, { path: "src" })).toBe("src is empty");
    expect(() => listDirTool(ws, { path: "notes.md" })).toThrow("notes.md is not a directory");
    expect(() => listDirTool(ws, { path: "/" })).toThrow("is outside the working directory");
  });
});
