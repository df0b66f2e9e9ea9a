import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { configPath, readConfig } from "./config.js";
import { configData, openConfigFile } from "./file.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function home(): string {
  const dir = mkdtempSync(join(tmpdir(), "uwf-config-yaml-"));
  made.push(dir);
  return dir;
}

const SECRET = "sk-abcdefghijklmnopqrstuvwxyz";
const BROKEN = `providers:\n  p: {baseUrl: http://x, apiKey: ${SECRET}\nagents: [\n`;

/** Seven levels of lists of aliases to the level below: 9^7 nodes once expanded. */
function aliasBomb(): string {
  const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"];
  for (let level = 1; level <= 7; level++) {
    const refs = Array.from({ length: 9 }, () => `*a${level - 1}`).join(", ");
    lines.push(`a${level}: &a${level} [${refs}]`);
  }
  return `${lines.join("\n")}\n`;
}

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

describe("config.yaml that does not parse", () => {
  it("names file, line and column, and never quotes the source (it may hold a key)", () => {
    const dir = home();
    writeFileSync(configPath(dir), BROKEN);
    for (const read of [() => readConfig(dir), () => openConfigFile(dir)]) {
      const error = thrown(read);
      expect(error.message).toBe(
        `${configPath(dir)} is not valid YAML: line 3, column 1: Flow map in block collection must be sufficiently indented and end with a }`,
      );
      expect(error).toMatchObject({ code: "CONFIG_INVALID" });
    }
  });

  it("refuses an alias bomb as a config error naming the file", () => {
    const dir = home();
    writeFileSync(configPath(dir), aliasBomb());
    const config = openConfigFile(dir);
    for (const read of [() => readConfig(dir), () => configData(config)]) {
      const error = thrown(read);
      expect(error).toMatchObject({ code: "CONFIG_INVALID" });
      expect(error.message).toMatch(
        new RegExp(`^${configPath(dir)}: refused to expand YAML aliases \\(Excessive alias count`),
      );
    }
  });
});
