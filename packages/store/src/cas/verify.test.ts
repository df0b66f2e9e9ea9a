import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cas } from "./cas.js";

let home: string;
let cas: Cas;
const fileOf = (hash: string) => join(home, "cas", hash.slice(0, 2), `${hash}.json`);

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-verify-"));
  cas = Cas.open(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("verify", () => {
  it("passes a healthy store", () => {
    cas.putText("a");
    cas.putText("b");
    expect(cas.verify()).toEqual({ checked: 3, ok: 3, corrupt: [] });
  });

  it("finds tampered and truncated files, strays, temp files and misplaced files", () => {
    const tampered = cas.putText("tampered");
    const truncated = cas.putText("truncated");
    const fine = cas.putText("fine");
    writeFileSync(
      fileOf(tampered),
      readFileSync(fileOf(tampered), "utf8").replace("tampered", "edited!!"),
    );
    writeFileSync(fileOf(truncated), readFileSync(fileOf(truncated)).subarray(0, 5));
    const shard = join(home, "cas", fine.slice(0, 2));
    writeFileSync(join(shard, ".tmp-1-0"), "half");
    writeFileSync(join(shard, "notes.txt"), "hi");
    const wrongShard = join(home, "cas", "ZZ");
    mkdirSync(wrongShard);
    writeFileSync(join(wrongShard, `${fine}.json`), readFileSync(fileOf(fine)));

    const report = cas.verify();
    expect(report.ok).toBe(2);
    const problems = Object.fromEntries(report.corrupt.map((item) => [item.file, item.problem]));
    expect(problems[fileOf(tampered)]).toMatch(/does not match its name/);
    expect(problems[fileOf(truncated)]).toMatch(/does not match its name/);
    expect(problems[join(shard, ".tmp-1-0")]).toMatch(/temporary file/);
    expect(problems[join(shard, "notes.txt")]).toMatch(/stray file/);
    expect(problems[join(wrongShard, `${fine}.json`)]).toBe(
      `misplaced: belongs in ${fine.slice(0, 2)}/`,
    );
  });

  it("reports a node whose schema node is gone", () => {
    const text = cas.putText("orphan");
    unlinkSync(fileOf(cas.builtin("text")));
    expect(cas.verify().corrupt).toEqual([
      {
        hash: text,
        file: fileOf(text),
        problem: `its schema node ${cas.builtin("text")} is missing`,
      },
    ]);
  });

  it("reports an empty store as empty", () => {
    expect(cas.verify()).toEqual({ checked: 0, ok: 0, corrupt: [] });
  });
});
