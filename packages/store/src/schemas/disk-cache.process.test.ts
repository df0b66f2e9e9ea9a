/**
 * The validator disk cache across real processes: a process that finds a schema's validator on
 * disk must not load ajv. Child processes cannot load TypeScript, so they import the built
 * package: run `pnpm build` (or `npx tsc -b packages/store`) first.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertBuiltStoreIsFresh, storeDistDir } from "../__testing__/built-store.js";

// Validates with a role-like schema (using ajv's runtime helpers: minLength, const, enum of
// objects, uniqueItems; and formats: cas-ref, email) and the built-in step schema, then lists
// the ajv and ajv-formats modules it loaded, after each validation and at the end.
const WORKER = `
import { createRequire } from "node:module";
const [distUrl, home] = process.argv.slice(2);
const { openStore } = await import(distUrl);
const { cas } = await openStore({ home });
const role = await cas.putSchema({
  type: "object",
  required: ["$status", "plan"],
  properties: {
    $status: { enum: ["done", { later: true }] },
    plan: { type: "string", minLength: 3 },
    kind: { const: { a: 1 } },
    tags: { type: "array", uniqueItems: true },
    ref: { type: "string", format: "cas-ref" },
    to: { type: "string", format: "email" },
  },
});
const loadedNow = () =>
  Object.keys(createRequire(import.meta.url).cache)
    .filter((file) => /[\\\\/](ajv|ajv-formats|json-schema-traverse|fast-uri)[\\\\/]/.test(file))
    .map((file) => file.replace(/^.*[\\\\/]node_modules[\\\\/]/, ""));
const checks = [
  [role, { $status: "done", plan: "ship it", ref: "7MSKT4YB69AED" }],
  [role, { $status: "later", plan: "no", kind: { a: 2 }, tags: [1, 1], ref: "x", to: "ada" }],
  [role, { $status: "done", plan: "mail it", to: "ada@example.com" }],
  [cas.builtin("step"), { start: "not a hash" }],
];
const results = [];
const loadedAfter = [];
for (const [type, payload] of checks) {
  results.push(await cas.validate(type, payload));
  loadedAfter.push(loadedNow());
}
process.stdout.write(JSON.stringify({ results, loadedAfter, loaded: loadedNow() }));
`;

interface WorkerReport {
  results: Array<{ valid: boolean; errors: string[] }>;
  loadedAfter: string[][];
  loaded: string[];
}

const FORMATS_FILE = "ajv-formats/dist/formats.js";

let home: string;
let workerFile: string;

beforeAll(() => {
  assertBuiltStoreIsFresh();
});

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-validators-process-"));
  workerFile = join(home, "worker.mjs");
  writeFileSync(workerFile, WORKER);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function runWorker(): WorkerReport {
  const distUrl = pathToFileURL(join(storeDistDir, "index.js")).href;
  const child = spawnSync(process.execPath, [workerFile, distUrl, home], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(`worker failed (${child.status}):\n${child.stderr}`);
  return JSON.parse(child.stdout) as WorkerReport;
}

describe("validator disk cache across processes", () => {
  it("a process whose schemas an earlier process compiled does not load ajv", () => {
    const first = runWorker();
    expect(first.loaded).toContain("ajv/dist/core.js");
    expect(readdirSync(join(home, "cache", "validators"))).toHaveLength(2);

    const second = runWorker();
    // Only ajv's small runtime helpers (here: equal and ucs2length) and the standard formats (a
    // value was checked against `email`) may load on a hit.
    expect(second.loaded.length).toBeGreaterThan(0);
    expect(second.loaded.filter((file) => !file.startsWith("ajv/dist/runtime/"))).toEqual([
      FORMATS_FILE,
    ]);
    expect(second.results).toEqual(first.results);
    expect(first.results.map((result) => result.valid)).toEqual([true, false, true, false]);
    expect(first.results[1]!.errors).toContain("/plan: must NOT have fewer than 3 characters");
    expect(first.results[1]!.errors).toContain('/ref: must match format "cas-ref"');
    expect(first.results[1]!.errors).toContain('/to: must match format "email"');
  });

  it("loads the standard formats only when a value is checked against one", () => {
    for (const run of [runWorker(), runWorker()]) {
      // Compiling (first run) or reading the cache (second), and checking a cas-ref, load none.
      expect(run.loadedAfter[0]).not.toContain(FORMATS_FILE);
      expect(run.loadedAfter[1]).toContain(FORMATS_FILE);
    }
  });
});
