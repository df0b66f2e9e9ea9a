import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "./tool-error.js";
import { Workspace } from "./workspace.js";

let temp: TempHome;
let root: string;
let outside: string;
let ws: Workspace;
beforeEach(() => {
  temp = tempHome();
  root = join(temp.home, "work");
  outside = join(temp.home, "outside");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "src", "a.ts"), "a");
  writeFileSync(join(outside, "secret.txt"), "secret");
  ws = new Workspace(root);
});
afterEach(() => temp.cleanup());

function refusal(path: string): string {
  try {
    ws.resolve(path);
  } catch (error) {
    if (error instanceof ToolError) return error.message;
    throw error;
  }
  throw new Error(`${path} was accepted`);
}

describe("Workspace.resolve", () => {
  it("resolves relative and absolute paths inside the working directory to real paths", () => {
    expect(ws.resolve("src/a.ts")).toBe(join(root, "src", "a.ts"));
    expect(ws.resolve("./src/../src/a.ts")).toBe(join(root, "src", "a.ts"));
    expect(ws.resolve(join(root, "src"))).toBe(join(root, "src"));
    expect(ws.resolve(".")).toBe(root);
    expect(ws.resolve("new/dir/file.md")).toBe(join(root, "new", "dir", "file.md"));
    expect(ws.display(ws.resolve("src/a.ts"))).toBe("src/a.ts");
  });

  it("refuses .. escapes", () => {
    expect(refusal("../outside/secret.txt")).toBe(
      `"../outside/secret.txt" is outside the working directory ${root}: tools may only touch files under it`,
    );
    expect(refusal("src/../../outside")).toContain("is outside the working directory");
    expect(refusal("..")).toContain("is outside the working directory");
  });

  it("refuses absolute paths outside, including a sibling that shares the prefix", () => {
    expect(refusal("/etc/passwd")).toContain("is outside the working directory");
    mkdirSync(`${root}-other`);
    expect(refusal(`${root}-other/x`)).toContain("is outside the working directory");
  });

  it("refuses a symbolic link that points outside, naming where it resolves", () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "link.txt"));
    expect(refusal("link.txt")).toBe(
      `"link.txt" is outside the working directory ${root} (it resolves to ${join(outside, "secret.txt")}): tools may only touch files under it`,
    );
  });

  it("refuses a new file under a symlinked parent directory that leads outside", () => {
    symlinkSync(outside, join(root, "out"));
    expect(refusal("out/new-file.txt")).toContain(
      `(it resolves to ${join(outside, "new-file.txt")})`,
    );
    expect(refusal("out/deeper/still/new.txt")).toContain("is outside the working directory");
  });

  it("refuses a dangling symbolic link whose target would be created outside", () => {
    symlinkSync(join(outside, "not-yet.txt"), join(root, "dangling.txt"));
    expect(refusal("dangling.txt")).toContain(`(it resolves to ${join(outside, "not-yet.txt")})`);
  });

  it("accepts symbolic links that stay inside", () => {
    symlinkSync(join(root, "src"), join(root, "alias"));
    expect(ws.resolve("alias/a.ts")).toBe(join(root, "src", "a.ts"));
  });

  it("works from a working directory reached through a symbolic link", () => {
    symlinkSync(root, join(temp.home, "via-link"));
    const linked = new Workspace(join(temp.home, "via-link"));
    expect(linked.root).toBe(root);
    expect(linked.resolve(join(temp.home, "via-link", "src", "a.ts"))).toBe(
      join(root, "src", "a.ts"),
    );
    expect(() => linked.resolve("../outside")).toThrow(ToolError);
  });

  it("refuses a symbolic link loop and bad values with a message", () => {
    symlinkSync(join(root, "loop-b"), join(root, "loop-a"));
    symlinkSync(join(root, "loop-a"), join(root, "loop-b"));
    expect(refusal("loop-a/x")).toMatch(/too many symbolic links|cannot resolve/);
    expect(refusal("")).toBe(`"path" must be a non-empty string`);
    expect(() => ws.resolve(42)).toThrow(`"path" must be a non-empty string`);
    expect(refusal("a\0b")).toBe(`"path" must not contain a NUL byte`);
  });
});
