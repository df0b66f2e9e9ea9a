import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readParseCache, writeParseCache } from "./parse-cache.js";

describe("the parse cache", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "uwf-parse-cache-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives an entry back only for the text it was made from", () => {
    const file = join(dir, "cache", "a.json");
    writeParseCache(file, { source: "a: 1\n", value: { a: 1 }, path: "/x/a.yaml" });
    expect(readParseCache(file, "a: 1\n")).toEqual({
      format: 1,
      source: "a: 1\n",
      value: { a: 1 },
      path: "/x/a.yaml",
    });
    expect(readParseCache(file, "a: 1 \n")).toBeUndefined();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "cache")).mode & 0o777).toBe(0o700);
  });

  it("writes nothing JSON would not give back exactly", () => {
    const file = join(dir, "b.json");
    for (const value of [Number.NaN, -0, Number.POSITIVE_INFINITY, new Date(0)]) {
      writeParseCache(file, { source: "x", value: { value } });
      expect(readdirSync(dir)).toEqual([]);
    }
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    writeParseCache(file, { source: "x", value: loop });
    expect(readdirSync(dir)).toEqual([]);
  });

  it("keeps a key named __proto__ as data, as the parser gave it", () => {
    const file = join(dir, "p.json");
    writeParseCache(file, { source: "x", value: JSON.parse('{"__proto__":{"polluted":true}}') });
    const value = readParseCache(file, "x")?.value as Record<string, unknown>;
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("ignores a damaged or foreign entry", () => {
    const file = join(dir, "c.json");
    writeFileSync(file, "{ not json");
    expect(readParseCache(file, "x")).toBeUndefined();
    writeFileSync(file, JSON.stringify({ format: 2, source: "x", value: 1 }));
    expect(readParseCache(file, "x")).toBeUndefined();
    writeFileSync(file, "null");
    expect(readParseCache(file, "x")).toBeUndefined();
  });
});
