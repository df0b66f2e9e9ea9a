import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { nodeScript } from "./node-script.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-node-script-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("nodeScript", () => {
  const which = () => process.execPath;

  it("takes the script after this Node, resolved from the cwd", () => {
    expect(nodeScript(process.execPath, ["a.cjs", "-x"], "/w", which)).toEqual({
      file: "/w/a.cjs",
      args: ["-x"],
    });
  });

  it("refuses Node options before the script, and no script at all", () => {
    expect(nodeScript(process.execPath, ["--inspect", "a.cjs"], "/w", which)).toBeNull();
    expect(nodeScript(process.execPath, ["-e", "0"], "/w", which)).toBeNull();
    expect(nodeScript(process.execPath, [], "/w", which)).toBeNull();
  });

  it("refuses a #! line with Node options, another interpreter, or another Node", () => {
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const withFlags = file("flags", "#!/usr/bin/env -S node --no-warnings\n");
    const shell = file("shell", "#!/bin/sh\n");
    const other = file("other", "#!/usr/bin/env node\n");
    const none = file("none", "console.log(1)\n");
    expect(nodeScript(withFlags, [], dir, which)).toBeNull();
    expect(nodeScript(shell, [], dir, which)).toBeNull();
    expect(nodeScript(other, [], dir, () => "/bin/sh")).toBeNull();
    expect(nodeScript(other, [], dir, () => null)).toBeNull();
    expect(nodeScript(none, [], dir, which)).toBeNull();
    expect(nodeScript(other, ["y"], dir, which)).toEqual({ file: other, args: ["y"] });
  });
});
