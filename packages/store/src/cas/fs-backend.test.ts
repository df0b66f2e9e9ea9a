/** What only the filesystem CAS backend has: node files, their layout, repair and mtimes. */
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, openTempStore } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";
import { createFsCasBackend } from "./fs-backend.js";

let home: string;
let store: Store;

let removeTemp: () => Promise<void>;

beforeEach(async () => {
  ({ home, store, remove: removeTemp } = await openTempStore("cas-fs"));
});
afterEach(() => removeTemp());

const fileOf = (hash: string) => join(home, "cas", hash.slice(0, 2), `${hash}.json`);

/** Every file under cas/, relative to it. */
function casFiles(): string[] {
  return readdirSync(join(home, "cas"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(join(home, "cas").length + 1))
    .sort();
}

describe("node files", () => {
  it("stores a node as cas/<2 chars>/<hash>.json holding exactly the hashed bytes", async () => {
    const hash = await store.cas.putText("hello");
    const text = store.cas.builtin("text");
    expect(store.cas.backend.locate(hash)).toBe(fileOf(hash));
    expect(readFileSync(fileOf(hash), "utf8")).toBe(
      canonicalJson({ type: text, payload: "hello" }),
    );
    // Nothing else: no temp file is left behind.
    expect(casFiles()).toEqual([hash, text].map((h) => `${h.slice(0, 2)}/${h}.json`).sort());
    expect(statSync(fileOf(hash)).mode & 0o777).toBe(0o600);
  });

  it("leaves an intact node file as it is when the hash is written again", async () => {
    const { cas } = store;
    const hash = await cas.putText("same");
    const before = readFileSync(fileOf(hash));
    expect(await cas.putNode({ type: cas.builtin("text"), payload: "same" })).toEqual({
      hash,
      created: false,
    });
    // Other bytes under an intact node's name change nothing either.
    const backend = createFsCasBackend(join(home, "cas"));
    const other = { hash, bytes: Buffer.from("other"), type: "schema", refs: [] };
    expect(await backend.write([other])).toEqual(new Set());
    expect(readFileSync(fileOf(hash))).toEqual(before);
  });

  it("restarts a node's gc grace period when it is written again", async () => {
    const hash = await store.cas.putText("old");
    const longAgo = new Date(Date.now() - 3_600_000);
    utimesSync(fileOf(hash), longAgo, longAgo);
    const writtenAt = async (hash: string) =>
      (await store.cas.backend.writtenAtMs?.([hash]))?.get(hash) ?? null;
    expect(await writtenAt(hash)).toBe(statSync(fileOf(hash)).mtimeMs);
    await store.cas.putText("old");
    expect(await writtenAt(hash)).toBeGreaterThan(longAgo.getTime() + 60_000);
    expect(await writtenAt("0000000000000")).toBeNull();
  });
});

describe("damaged node files", () => {
  it("names the file of an edited node", async () => {
    const hash = await store.cas.putText("original");
    writeFileSync(fileOf(hash), readFileSync(fileOf(hash), "utf8").replace("original", "tampered"));
    const error = await caught(() => store.cas.get(hash));
    expect(error.code).toBe("CAS_CORRUPT");
    expect(error.message).toContain(fileOf(hash));
    expect(error.message).toContain("does not match its name");
  });

  it("names the file of a truncated or emptied node", async () => {
    const hash = await store.cas.putText("a longer text that gets cut");
    writeFileSync(fileOf(hash), readFileSync(fileOf(hash)).subarray(0, 10));
    const error = await caught(() => store.cas.get(hash));
    expect(error.message.startsWith(`${fileOf(hash)}: content does not match`)).toBe(true);
    writeFileSync(fileOf(hash), "");
    expect((await caught(() => store.cas.get(hash))).code).toBe("CAS_CORRUPT");
  });

  it("repairs a damaged file in place when the node is written again", async () => {
    const hash = await store.cas.putText("precious");
    const good = readFileSync(fileOf(hash));
    writeFileSync(fileOf(hash), good.subarray(0, 5));
    expect(
      await store.cas.backend.write([
        { hash, bytes: good, type: store.cas.builtin("text"), refs: [] },
      ]),
    ).toEqual(new Set([hash]));
    expect(readFileSync(fileOf(hash))).toEqual(good);
    expect(casFiles().filter((file) => file.includes(".tmp-"))).toEqual([]);
  });
});

describe("listing", () => {
  it("lists node files only, not temp, stray or misplaced files", async () => {
    const hash = await store.cas.putText("fine");
    const shard = join(home, "cas", hash.slice(0, 2));
    writeFileSync(join(shard, ".tmp-1-0"), "half");
    writeFileSync(join(shard, "notes.txt"), "hi");
    writeFileSync(join(home, "cas", "README"), "hi");
    mkdirSync(join(home, "cas", "ZZ"));
    writeFileSync(join(home, "cas", "ZZ", `${hash}.json`), readFileSync(fileOf(hash)));
    const listed: string[] = [];
    for await (const item of store.cas.backend.list()) listed.push(item);
    expect(listed.sort()).toEqual([hash, store.cas.builtin("text")].sort());
  });

  it("lists nothing before the first write", async () => {
    const listed: string[] = [];
    for await (const item of store.cas.backend.list()) listed.push(item);
    expect(listed).toEqual([]);
  });
});
