import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ERROR_EXIT_CODES, exitCodeFor } from "./exit-codes.js";
import { addUsage, BUILTIN_SCHEMAS, emptyUsage } from "./nodes.js";

describe("addUsage", () => {
  it("keeps unknown figures null until someone reports them", () => {
    const total = addUsage(addUsage(emptyUsage(), { inputTokens: 10 }), {
      inputTokens: 5,
      costUsd: 0.01,
    });
    expect(total).toEqual({ ...emptyUsage(), inputTokens: 15, costUsd: 0.01 });
  });

  it("ignores figures that are not finite numbers", () => {
    const bad = { inputTokens: Number.NaN, turns: "3" as unknown as number };
    expect(addUsage(emptyUsage(), bad)).toEqual(emptyUsage());
  });
});

describe("exit codes", () => {
  it("map every error code as DESIGN §12 says", () => {
    expect(exitCodeFor("USAGE")).toBe(2);
    expect(exitCodeFor("WORKFLOW_INVALID")).toBe(3);
    expect(exitCodeFor("AGENT_FAILED")).toBe(4);
    expect(exitCodeFor("THREAD_BUSY")).toBe(5);
    expect(exitCodeFor("INTERRUPTED")).toBe(130);
    expect(exitCodeFor("SOMETHING_NEW")).toBe(1);
    for (const code of Object.values(ERROR_EXIT_CODES))
      expect([1, 2, 3, 4, 5, 130]).toContain(code);
  });
});

/** Sorted-key JSON, as the CAS hashes a node (util's canonicalJson; protocol cannot import it). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

describe("built-in schemas", () => {
  // Their content is their hash, and every stored node's `type` is such a hash: a changed
  // built-in schema would orphan every node already stored under the old one.
  it("never change", () => {
    const digests = Object.fromEntries(
      Object.entries(BUILTIN_SCHEMAS).map(([kind, schema]) => [
        kind,
        createHash("sha256").update(canonical(schema)).digest("hex").slice(0, 16),
      ]),
    );
    expect(digests).toEqual({
      workflow: "703b874f4e2cae26",
      start: "95561556e72e49ec",
      step: "bc56ad342efd3362",
      text: "fb4ddc395129d4dd",
      detail: "03c75f73291a4653",
      turn: "b3462ba413dde51e",
      stepDetail: "5991c5facf83ef76",
      workflow2: "12f7f64cd14e3328",
      start2: "0bc98da04700afaa",
      workflow3: "2f6c483dc07ca9b8",
      workflow4: "54f73047bcebb3ca",
      start3: "396837701f7a8a9a",
    });
  });
});
