import { hashBytes } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { RowFlags, StepTable } from "./step-table.js";

const usage = {
  inputTokens: 120,
  outputTokens: 30,
  cacheReadTokens: null,
  cacheWriteTokens: 0,
  costUsd: 0.0125,
  turns: 2,
  durationMs: null,
};

describe("StepTable", () => {
  it("gives back each step as it took it in, unknown figures and no model included", () => {
    const table = new StepTable();
    const first = table.add({
      hash: "A",
      prev: null,
      startedAtMs: 1,
      completedAtMs: 2,
      role: "coder",
      agent: "uwf-mock",
      model: null,
      usage,
    });
    const second = table.add({
      hash: "B",
      prev: "A",
      startedAtMs: 3,
      completedAtMs: 4.5,
      role: "reviewer",
      agent: "uwf-mock",
      model: "gpt-5",
      usage,
    });
    expect(table.row(first)).toEqual({
      hash: "A",
      index: 0,
      startedAtMs: 1,
      completedAtMs: 2,
      role: "coder",
      agent: "uwf-mock",
      model: null,
      usage,
    });
    expect(table.row(second)).toMatchObject({ hash: "B", role: "reviewer", model: "gpt-5" });
    expect([table.prevOf(second), table.prevOf(first), table.completedAtMsOf(second)]).toEqual([
      "A",
      null,
      4.5,
    ]);
    // A step taken in again keeps its row.
    expect(table.add({ ...table.row(first), prev: null })).toBe(first);
    expect([table.size, table.has("B"), table.indexOf("C")]).toEqual([2, true, undefined]);
  });

  it("keeps real hashes packed, growing past its first columns and finding every row", () => {
    const table = new StepTable(16);
    const hashes = Array.from({ length: 5000 }, (_, i) => hashBytes(`step ${i}`));
    for (let i = 0; i < 5000; i++) {
      table.add({
        hash: hashes[i]!,
        prev: i === 0 ? null : hashes[i - 1]!,
        startedAtMs: i,
        completedAtMs: i + 1,
        role: `role${i % 3}`,
        agent: "a",
        model: null,
        usage: { ...usage, inputTokens: i },
      });
    }
    expect(table.row(4999)).toMatchObject({ hash: hashes[4999], startedAtMs: 4999, role: "role1" });
    expect(table.row(4999).usage.inputTokens).toBe(4999);
    expect([table.prevOf(4999), table.prevOf(0)]).toEqual([hashes[4998], null]);
    expect(hashes.every((hash, i) => table.indexOf(hash) === i)).toBe(true);
    expect(table.indexOf(hashBytes("never added"))).toBeUndefined();
    expect(table.add({ ...table.row(7), prev: hashes[6]! })).toBe(7);
    expect(table.size).toBe(5000);
  });
});

describe("RowFlags", () => {
  it("marks rows far past its first size", () => {
    const flags = new RowFlags();
    flags.add(3);
    flags.add(100_000);
    expect([flags.has(3), flags.has(4), flags.has(100_000), flags.has(200_000)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
