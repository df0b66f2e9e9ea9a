import { mkdirSync, mkdtempSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { makePrivateDir, resolveHome } from "./home.js";

describe("resolveHome", () => {
  it("uses UWF_HOME, made absolute", () => {
    expect(resolveHome({ UWF_HOME: "/tmp/x" })).toBe("/tmp/x");
    expect(resolveHome({ UWF_HOME: "rel/dir" })).toBe(resolve("rel/dir"));
  });

  it("defaults to ~/.uwf when UWF_HOME is unset or blank", () => {
    expect(resolveHome({})).toBe(join(homedir(), ".uwf"));
    expect(resolveHome({ UWF_HOME: "  " })).toBe(join(homedir(), ".uwf"));
  });
});

describe("makePrivateDir", () => {
  it("creates the folder and its missing parents for their owner only", () => {
    const base = mkdtempSync(join(tmpdir(), "uwf-home-"));
    makePrivateDir(join(base, "a", "b"));
    expect(statSync(join(base, "a")).mode & 0o777).toBe(0o700);
    expect(statSync(join(base, "a", "b")).mode & 0o777).toBe(0o700);
  });

  it("leaves a folder that exists as it is", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "uwf-home-")), "shared");
    mkdirSync(dir, { mode: 0o750 });
    makePrivateDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o750 & ~process.umask());
  });
});
