/** What verify finds only in the filesystem CAS: stray, temp and misplaced files, lost schemas. */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTempStore } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";

let home: string;
let store: Store;
const fileOf = (hash: string) => join(home, "cas", hash.slice(0, 2), `${hash}.json`);

let removeTemp: () => Promise<void>;

beforeEach(async () => {
  ({ home, store, remove: removeTemp } = await openTempStore("verify"));
});
afterEach(() => removeTemp());

describe("verify on the filesystem", () => {
  it("finds tampered and truncated files, strays, temp files and misplaced files", async () => {
    const { cas } = store;
    const tampered = await cas.putText("tampered");
    const truncated = await cas.putText("truncated");
    const fine = await cas.putText("fine");
    writeFileSync(
      fileOf(tampered),
      readFileSync(fileOf(tampered), "utf8").replace("tampered", "edited!!"),
    );
    writeFileSync(fileOf(truncated), readFileSync(fileOf(truncated)).subarray(0, 5));
    const shard = join(home, "cas", fine.slice(0, 2));
    writeFileSync(join(shard, ".tmp-1-0"), "half");
    writeFileSync(join(shard, "notes.txt"), "hi");
    writeFileSync(join(home, "cas", "README"), "hi");
    const wrongShard = join(home, "cas", "ZZ");
    mkdirSync(wrongShard);
    writeFileSync(join(wrongShard, `${fine}.json`), readFileSync(fileOf(fine)));

    const report = await store.verify();
    expect(report.ok).toBe(2);
    const problems = Object.fromEntries(report.corrupt.map((item) => [item.file, item.problem]));
    expect(problems[fileOf(tampered)]).toMatch(/does not match its name/);
    expect(problems[fileOf(truncated)]).toMatch(/does not match its name/);
    expect(problems[join(shard, ".tmp-1-0")]).toMatch(/temporary file/);
    expect(problems[join(shard, "notes.txt")]).toMatch(/stray file/);
    expect(problems[join(home, "cas", "README")]).toMatch(/outside the shard folders/);
    expect(problems[join(wrongShard, `${fine}.json`)]).toBe(
      `misplaced: belongs in ${fine.slice(0, 2)}/`,
    );
    expect(Object.keys(problems)).toHaveLength(6);
  });

  it("reports a node whose schema node is gone, unless the schema is built in", async () => {
    const { cas } = store;
    const schema = await cas.putSchema({ type: "string", title: "a role" });
    const orphan = await cas.put(schema, "orphan");
    await cas.putText("text is built in");
    unlinkSync(fileOf(schema));
    unlinkSync(fileOf(cas.builtin("text")));
    expect((await store.verify()).corrupt).toEqual([
      { hash: orphan, file: fileOf(orphan), problem: `its schema node ${schema} is missing` },
    ]);
  });
});
