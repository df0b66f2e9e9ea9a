import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addHomeDotenv, readHomeDotenv } from "./dotenv.js";

const home = (text?: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "uwf-dotenv-"));
  if (text !== undefined) writeFileSync(join(dir, ".env"), text);
  return dir;
};

describe("<home>/.env", () => {
  it("reads the variables, quoted, commented and exported forms included", () => {
    const dir = home('export A=1\nB="two words" # note\nC=\'x\'\n# D=4\nE="line\\nbreak"\n');
    expect(readHomeDotenv(dir)).toEqual({ A: "1", B: "two words", C: "x", E: "line\nbreak" });
  });

  it("is empty when there is no file", () => {
    expect(readHomeDotenv(home())).toEqual({});
  });

  it("names the file when it exists but cannot be read", () => {
    // A folder in its place: unreadable as a file even for root, who reads any mode.
    const dir = home();
    mkdirSync(join(dir, ".env"));
    expect(() => readHomeDotenv(dir)).toThrow(/cannot read .*\.env/);
  });

  it("adds to an environment without overriding what is set", () => {
    const env: Record<string, string | undefined> = { A: "from the environment" };
    addHomeDotenv(home("A=from .env\nB=2\n"), env);
    expect(env).toEqual({ A: "from the environment", B: "2" });
  });
});
