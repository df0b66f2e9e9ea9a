import { describe, expect, it } from "vitest";
import { KeptNodes } from "./kept-nodes.js";

const node = (size: number) => new Uint8Array(size);

describe("KeptNodes", () => {
  it("keeps nodes up to its bound and drops the oldest generation past it", () => {
    const kept = new KeptNodes(400);
    for (let i = 0; i < 4; i++) kept.add(`n${i}`, node(100));
    // n0..n1 filled the first half; n2..n3 the second: all kept.
    expect([0, 1, 2, 3].map((i) => kept.get(`n${i}`) !== undefined)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    kept.add("n4", node(100));
    kept.add("n5", node(100));
    kept.add("n6", node(100));
    // The generation of n0 and n1 was dropped whole; never more than the bound is kept.
    expect(["n0", "n1", "n4", "n5", "n6"].map((h) => kept.get(h) !== undefined)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it("moves a node kept again to the newer generation, so a walk's shared nodes stay", () => {
    const kept = new KeptNodes(400);
    kept.add("shared", node(100));
    kept.add("a", node(100));
    kept.add("b", node(100));
    kept.add("shared", node(100));
    kept.add("c", node(100));
    kept.add("d", node(100));
    expect(kept.get("shared")).toBeDefined();
    expect(kept.get("a")).toBeUndefined();
  });

  it("never keeps a node bigger than half its bound", () => {
    const kept = new KeptNodes(400);
    kept.add("big", node(201));
    expect(kept.get("big")).toBeUndefined();
  });

  it("keeps the newest nodes after many times its bound passed through", () => {
    const kept = new KeptNodes(100_000);
    for (let i = 0; i < 200_000; i++) kept.add(`n${i}`, node(100));
    expect(kept.get("n199999")).toBeDefined();
    expect(kept.get("n0")).toBeUndefined();
  });
});
