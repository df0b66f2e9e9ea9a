/**
 * The registry rules over the filesystem backend: exact history times (an injected clock), the
 * entry files and their mutexes. What every backend's registry does is in the conformance suite
 * (__testing__/conformance-registry.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught } from "../__testing__/store-fixtures.js";
import { FsRegistryBackend } from "./fs-registry.js";
import { Registry } from "./registry.js";

const V1 = "0000000000001";
const V2 = "0000000000002";

let home: string;
let registry: Registry;
let tick: number;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-registry-"));
  tick = 0;
  registry = new Registry(new FsRegistryBackend(home), {
    now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++)),
  });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString();
const entryFile = (name: string) => join(home, "workflows", `${name}.json`);

describe("Registry on the filesystem", () => {
  it("stamps each version with the time it was added, newest first", async () => {
    await registry.add("plan", V1);
    expect(await registry.add("plan", V1)).toEqual({
      entry: { name: "plan", current: V1, history: [{ hash: V1, at: at(0) }] },
      changed: false,
    });
    await registry.add("plan", V2);
    const expected = {
      name: "plan",
      current: V2,
      history: [
        { hash: V2, at: at(1) },
        { hash: V1, at: at(0) },
      ],
    };
    expect(await registry.get("plan")).toEqual(expected);
    expect(JSON.parse(readFileSync(entryFile("plan"), "utf8"))).toEqual(expected);
    expect((await registry.rollback("plan")).history[0]).toEqual({ hash: V1, at: at(2) });
  });

  it("leaves no mutex or temp file behind", async () => {
    await registry.add("plan", V1);
    await registry.add("plan", V2);
    await registry.rollback("plan");
    await registry.remove("plan");
    await registry.add("other", V1);
    expect(readdirSync(join(home, "locks", "workflows"))).toEqual([]);
    expect(readdirSync(join(home, "workflows"))).toEqual(["other.json"]);
  });

  it("scans entry files only, reporting an unreadable one by file", async () => {
    await registry.add("zeta", V1);
    await registry.add("alpha", V2);
    const broken = entryFile("broken");
    writeFileSync(broken, "{");
    writeFileSync(join(home, "workflows", "notes.txt"), "ignored");
    writeFileSync(join(home, "workflows", ".tmp-1-2.json"), "{");
    expect((await registry.list()).map((entry) => entry.name)).toEqual(["alpha", "zeta"]);
    expect((await registry.scan()).problems).toEqual([
      { name: "broken", location: broken, problem: "the content is not JSON" },
    ]);
    const error = await caught(() => registry.get("broken"));
    expect([error.code, error.message]).toEqual([
      "REGISTRY_CORRUPT",
      `${broken}: the content is not JSON`,
    ]);
  });

  it("says what is wrong with an entry file", async () => {
    mkdirSync(join(home, "workflows"), { recursive: true });
    const cases: [unknown, string][] = [
      ["", "the file is empty"],
      [[], "not a JSON object"],
      [{ name: "other", current: V1, history: [{ hash: V1, at: at(0) }] }, "it names workflow"],
      [{ name: "w", current: "x", history: [] }, "`current` is missing or not a CAS hash"],
      [{ name: "w", current: V1, history: [] }, "`history` is missing or empty"],
      [{ name: "w", current: V1, history: [{ hash: V1 }] }, "`history` holds an item"],
      [
        { name: "w", current: V1, history: [{ hash: V2, at: at(0) }] },
        "`current` is not the newest history item",
      ],
    ];
    for (const [content, problem] of cases) {
      writeFileSync(
        entryFile("w"),
        typeof content === "string" ? content : JSON.stringify(content),
      );
      expect((await registry.scan()).problems[0]?.problem).toContain(problem);
    }
  });
});
