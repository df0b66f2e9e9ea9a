import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packageVersion } from "./version.js";

describe("packageVersion", () => {
  it("reads the package.json one folder up from the module when unbundled", () => {
    const manifest = JSON.parse(
      readFileSync(new URL("../package.json", import.meta.url), "utf8"),
    ) as { version: string };
    expect(packageVersion(() => import.meta.url)).toBe(manifest.version);
  });
});
