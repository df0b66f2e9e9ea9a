import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Registry } from "./registry.js";

const V1 = "0000000000001";
const V2 = "0000000000002";
const V3 = "0000000000003";

let home: string;
let registry: Registry;
let tick: number;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-registry-"));
  tick = 0;
  registry = new Registry(home, { now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++)) });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString();

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isUwfError(error) ? error.code : "not a UwfError";
  }
  return undefined;
}

describe("Registry", () => {
  it("adds versions newest first and ignores re-adding the current one", () => {
    expect(registry.get("plan")).toBeNull();
    expect(registry.add("plan", V1).changed).toBe(true);
    expect(registry.add("plan", V1)).toEqual({
      entry: { name: "plan", current: V1, history: [{ hash: V1, at: at(0) }] },
      changed: false,
    });
    registry.add("plan", V2);
    expect(registry.get("plan")).toEqual({
      name: "plan",
      current: V2,
      history: [
        { hash: V2, at: at(1) },
        { hash: V1, at: at(0) },
      ],
    });
    expect(readdirSync(join(home, "locks", "workflows"))).toEqual([]);
  });

  it("rolls back to the previous distinct version, or to a named one, keeping history", () => {
    registry.add("plan", V1);
    registry.add("plan", V2);
    registry.add("plan", V3);
    expect(registry.rollback("plan").current).toBe(V2);
    const entry = registry.rollback("plan", V1);
    expect(entry.current).toBe(V1);
    expect(entry.history.map((item) => item.hash)).toEqual([V1, V2, V3, V2, V1]);
    expect(registry.rollback("plan", V1)).toEqual(entry);
  });

  it("refuses rollbacks that cannot be done", () => {
    expect(codeOf(() => registry.rollback("missing"))).toBe("WORKFLOW_NOT_FOUND");
    registry.add("plan", V1);
    expect(codeOf(() => registry.rollback("plan"))).toBe("USAGE");
    expect(codeOf(() => registry.rollback("plan", V2))).toBe("USAGE");
    expect(codeOf(() => registry.rollback("plan", "bad"))).toBe("HASH_INVALID");
  });

  it("removes an entry", () => {
    registry.add("plan", V1);
    expect(registry.remove("plan")).toBe(true);
    expect(registry.remove("plan")).toBe(false);
    expect(registry.get("plan")).toBeNull();
  });

  it("validates names and hashes before building a path", () => {
    expect(codeOf(() => registry.get("../secrets"))).toBe("USAGE");
    expect(codeOf(() => registry.add("a/b", V1))).toBe("USAGE");
    expect(codeOf(() => registry.remove(".hidden"))).toBe("USAGE");
    expect(codeOf(() => registry.add("plan", "not-a-hash"))).toBe("HASH_INVALID");
  });

  it("lists readable entries by name; scan also reports the unreadable ones", () => {
    registry.add("zeta", V1);
    registry.add("alpha", V2);
    mkdirSync(join(home, "workflows"), { recursive: true });
    const broken = join(home, "workflows", "broken.json");
    writeFileSync(broken, "{");
    writeFileSync(join(home, "workflows", "notes.txt"), "ignored");
    expect(registry.list().map((entry) => entry.name)).toEqual(["alpha", "zeta"]);
    expect(registry.scan().problems).toEqual([
      { name: "broken", file: broken, problem: "the content is not JSON" },
    ]);
    expect(() => registry.get("broken")).toThrow(broken);
  });
});
