import { hashBytes } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { PackedHashes } from "./packed-hashes.js";

async function* listed(hashes: string[]): AsyncGenerator<string> {
  yield* hashes;
}

describe("PackedHashes", () => {
  it("finds every listed hash by index and gives back its exact name", async () => {
    const hashes = Array.from({ length: 3_000 }, (_, i) => hashBytes(`node ${i}`));
    hashes.push("0000000000000", "FZZZZZZZZZZZZ");
    const set = await PackedHashes.from(listed([...hashes, hashes[7]!]));
    expect(set.size).toBe(hashes.length);
    const indexes = new Set<number>();
    for (const hash of hashes) {
      const index = set.indexOf(hash);
      expect(set.hashAt(index)).toBe(hash);
      indexes.add(index);
    }
    expect(indexes.size).toBe(hashes.length);
    expect(set.indexOf(hashBytes("not listed"))).toBe(-1);
  });

  it("keeps names that are not 64-bit hashes as they are", async () => {
    const set = await PackedHashes.from(listed(["ZZZZZZZZZZZZZ", "short", "0000000000001"]));
    expect(set.size).toBe(3);
    for (const name of ["ZZZZZZZZZZZZZ", "short", "0000000000001"]) {
      expect(set.hashAt(set.indexOf(name))).toBe(name);
    }
    expect(set.indexOf("YYYYYYYYYYYYY")).toBe(-1);
  });
});
