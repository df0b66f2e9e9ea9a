/**
 * Locks and the registry across real processes. Child processes cannot load TypeScript, so
 * they import the built package: run `pnpm build` (or `npx tsc -b packages/store`) first.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assertBuiltStoreIsFresh, storeDistDir } from "./__testing__/built-store.js";
import { threadLockPath } from "./locks/lock.js";
import { Registry } from "./registry/registry.js";

const WORKERS = 10;

const WORKER = `
import { existsSync, writeFileSync } from "node:fs";
const [distUrl, op, startAt, ...args] = process.argv.slice(2);
const store = await import(distUrl);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
// Line up on one instant so the calls really race.
while (Date.now() < Number(startAt)) {}
const report = (value) => process.stdout.write(JSON.stringify(value));
try {
  if (op === "lock") {
    const [path, releaseFile] = args;
    store.acquireLock(path, "test");
    report({ won: true, pid: process.pid });
    // Hold the lock until every competitor has answered.
    const until = Date.now() + 20000;
    while (!existsSync(releaseFile) && Date.now() < until) pause(20);
  } else if (op === "registry-add") {
    const [home, name, hash] = args;
    report({ changed: new store.Registry(home).add(name, hash).changed });
  } else if (op === "validate") {
    const { createRequire } = await import("node:module");
    const cache = createRequire(import.meta.url).cache;
    const ajvLoaded = () => Object.keys(cache).some((key) => key.includes("/ajv/"));
    const cas = store.Cas.open(args[0]);
    cas.putText("a text node needs no ajv");
    const afterText = ajvLoaded();
    cas.validate(cas.builtin("step"), {});
    report({ afterText, afterValidate: ajvLoaded() });
  }
} catch (error) {
  report({ code: error.code, details: error.details ?? null, message: error.message });
}
`;

let scratch: string;
let workerFile: string;

beforeAll(() => {
  assertBuiltStoreIsFresh();
});

beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), "uwf-multi-"));
  workerFile = join(scratch, "worker.mjs");
  writeFileSync(workerFile, WORKER);
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe("across processes", () => {
  it("ten processes acquire one lock at once: one wins, nine are told it is busy", async () => {
    const path = threadLockPath(scratch, newUlid());
    const results = await raceLock(path);
    const winners = results.filter((result) => result.won);
    expect(winners.length).toBe(1);
    const losers = results.filter((result) => !result.won);
    expect(losers.map((result) => result.code)).toEqual(Array(WORKERS - 1).fill("THREAD_BUSY"));
    for (const loser of losers) expect(loser.details).toMatchObject({ pid: winners[0]!.pid });
  });

  it("ten processes race to take over one stale lock: one wins", async () => {
    const path = threadLockPath(scratch, newUlid());
    mkdirSync(dirname(path));
    // pid_max is at most 2^22 on Linux, so this holder cannot be running.
    writeFileSync(
      path,
      JSON.stringify({
        token: "dead",
        holder: { pid: 2 ** 22 + 1, startTime: "1" },
        acquiredAt: new Date(0).toISOString(),
        command: "thread exec",
        child: null,
      }),
    );
    const results = await raceLock(path);
    expect(results.filter((result) => result.won).length).toBe(1);
    expect(results.filter((result) => result.code === "THREAD_BUSY").length).toBe(WORKERS - 1);
  });

  it("ten processes add versions of one workflow at once: none is lost", async () => {
    const hashes = Array.from({ length: WORKERS }, (_, i) => `${i}`.padStart(13, "A"));
    const startAt = Date.now() + 1_500;
    const results = await Promise.all(
      hashes.map((hash) => runWorker(["registry-add", String(startAt), scratch, "shared", hash])),
    );
    expect(results).toEqual(Array(WORKERS).fill({ changed: true }));
    const entry = new Registry(scratch).get("shared")!;
    expect(entry.history.map((item) => item.hash).sort()).toEqual([...hashes].sort());
    expect(entry.current).toBe(entry.history[0]!.hash);
    expect(readdirSync(join(scratch, "locks", "workflows"))).toEqual([]);
  });
});

describe("start-up cost", () => {
  // Compiling once per schema is validator-cache.test.ts's; the cost is `pnpm bench`'s.
  it("loads ajv only when something is validated", async () => {
    const result = await runWorker(["validate", "0", scratch]);
    expect(result).toEqual({ afterText: false, afterValidate: true });
  });
});

async function raceLock(path: string): Promise<Array<Record<string, unknown>>> {
  const releaseFile = join(scratch, "release");
  const startAt = Date.now() + 1_500;
  const pending = Array.from({ length: WORKERS }, () =>
    runWorker(["lock", String(startAt), path, releaseFile], { answerOnly: true }),
  );
  const results = await Promise.all(pending.map((worker) => worker.answer));
  writeFileSync(releaseFile, "");
  await Promise.all(pending.map((worker) => worker.exited));
  return results;
}

function runWorker(args: string[]): Promise<Record<string, unknown>>;
function runWorker(
  args: string[],
  options: { answerOnly: true },
): { answer: Promise<Record<string, unknown>>; exited: Promise<void> };
function runWorker(args: string[], options?: { answerOnly: true }) {
  const [op, ...rest] = args;
  const child = spawn(
    process.execPath,
    [workerFile, pathToFileURL(join(storeDistDir, "index.js")).href, op!, ...rest],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let answered: (value: Record<string, unknown>) => void = () => {};
  const answer = new Promise<Record<string, unknown>>((resolve) => {
    answered = resolve;
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    try {
      answered(JSON.parse(stdout));
    } catch {
      // Not the whole answer yet.
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve, reject) => {
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`worker exited with ${code}: ${stderr}`));
    });
  });
  if (options?.answerOnly) return { answer, exited };
  return exited.then(() => JSON.parse(stdout) as Record<string, unknown>);
}

/** The workers run the built package, so it must exist and be newer than its sources. */
