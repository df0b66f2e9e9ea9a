import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readInputsFile } from "./inputs-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-inputs-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await run();
  } catch (error) {
    if (isUwfError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected an error");
}

describe("readInputsFile", () => {
  it("reads YAML and JSON relative to the caller's directory, keeping their types", async () => {
    writeFileSync(join(dir, "in.yaml"), "issue: 42\nurgent: true\nlabels: [bug]\n");
    writeFileSync(join(dir, "in.json"), '{"issue": "42"}');
    expect(await readInputsFile(dir, "in.yaml")).toEqual({
      name: "in.yaml",
      values: { issue: 42, urgent: true, labels: ["bug"] },
    });
    expect((await readInputsFile(dir, "in.json")).values).toEqual({ issue: "42" });
  });

  it("treats an empty file as no inputs", async () => {
    writeFileSync(join(dir, "empty.yaml"), "");
    expect((await readInputsFile(dir, "empty.yaml")).values).toEqual({});
  });

  it("names the file when it cannot be read or parsed", async () => {
    expect(await failure(() => readInputsFile(dir, "missing.yaml"))).toMatchObject({
      code: "USAGE",
      message: expect.stringContaining("cannot read --inputs missing.yaml: "),
    });
    writeFileSync(join(dir, "bad.yaml"), "issue: [42\n");
    expect(await failure(() => readInputsFile(dir, "bad.yaml"))).toMatchObject({
      code: "INPUT_INVALID",
      message: expect.stringContaining("--inputs bad.yaml is not valid YAML or JSON: "),
    });
  });
});
