import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveHome } from "./home.js";

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
