/**
 * The filesystem store across real processes, beyond the races every backend passes (those are
 * in __testing__/conformance-processes.ts). Child processes cannot load TypeScript, so they
 * import the built package: run `pnpm exec tsc -b packages/store` first.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertBuiltStoreIsFresh, storeDistDir } from "./__testing__/built-store.js";
import { killStoreWorkers, startStoreWorkers } from "./__testing__/store-workers.js";

const WORKERS = 10;

// Stores a text node, then validates twice against the built-in step schema, and says when ajv
// was loaded and how often a validator was compiled or read from the disk cache.
const VALIDATE_WORKER = `
import { createRequire } from "node:module";
const [distUrl, home] = process.argv.slice(2);
const { openStore } = await import(distUrl);
const { validatorCacheInternals } = await import(new URL("./schemas/validator-cache.js", distUrl).href);
const cache = createRequire(import.meta.url).cache;
const ajvLoaded = () => Object.keys(cache).some((key) => key.includes("/ajv/"));
const store = await openStore({ home });
await store.cas.putText("a text node needs no ajv");
const afterText = ajvLoaded();
const step = store.cas.builtin("step");
await store.cas.validate(step, {});
const first = validatorCacheInternals.counts();
await store.cas.validate(step, {});
const second = validatorCacheInternals.counts();
process.stdout.write(JSON.stringify({ afterText, afterValidate: ajvLoaded(), first, second }));
`;

let home: string;

beforeAll(() => {
  assertBuiltStoreIsFresh();
});

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-multi-"));
});
afterEach(async () => {
  await killStoreWorkers();
  rmSync(home, { recursive: true, force: true });
});

describe("across processes", () => {
  it(`${WORKERS} processes race to take over one stale lock file: one wins`, async () => {
    const thread = newUlid();
    mkdirSync(join(home, "locks"));
    // A lock file from before leases; pid_max is at most 2^22 on Linux, so it cannot be running.
    writeFileSync(
      join(home, "locks", `${thread}.lock`),
      JSON.stringify({
        token: "dead",
        holder: { pid: 2 ** 22 + 1, startTime: "1" },
        acquiredAt: new Date(0).toISOString(),
        command: "thread exec",
        child: null,
      }),
    );
    const workers = await startStoreWorkers(WORKERS, { home });
    const answers = await Promise.all(
      workers.map((worker) =>
        worker.call<{ replaced: { token: string } | null }>("acquire", thread),
      ),
    );
    const winners = answers.filter((answer) => answer.value !== undefined);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.value!.replaced?.token).toBe("dead");
    expect(answers.filter((answer) => answer.error?.code === "THREAD_BUSY")).toHaveLength(
      WORKERS - 1,
    );
    // No takeover guard or temp file is left behind.
    expect(readdirSync(join(home, "locks"))).toEqual([`${thread}.lock`]);
  });
});

describe("start-up cost", () => {
  it("loads ajv only when something is validated, and compiles once per schema", () => {
    const workerFile = join(home, "validate-worker.mjs");
    writeFileSync(workerFile, VALIDATE_WORKER);
    const distUrl = pathToFileURL(join(storeDistDir, "index.js")).href;
    const child = spawnSync(process.execPath, [workerFile, distUrl, join(home, "store")], {
      encoding: "utf8",
    });
    if (child.status !== 0) throw new Error(`worker failed (${child.status}):\n${child.stderr}`);
    const result = JSON.parse(child.stdout);
    expect(result).toEqual({
      afterText: false,
      afterValidate: true,
      // Unbundled (as here), no validator is precompiled: the bundles carry the built-ins' only.
      first: { compiled: 1, fromDisk: 0, precompiled: 0 },
      second: { compiled: 1, fromDisk: 0, precompiled: 0 },
    });
  });
});
