/**
 * A full disk anywhere in an exec lease: every failure is an IO error naming the file, and no
 * lock, temp file or takeover guard is left behind. The disk is a seam over `node:fs`: the
 * calls named in `full` fail with ENOSPC, as they would on a full filesystem.
 */
import * as fs from "node:fs";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { caught, deadPid } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";
import { openStore } from "../open-store.js";

const full = new Set<string>();

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof fs>();
  const seam = <F extends (...args: never[]) => unknown>(name: string, call: F): F =>
    ((...args: Parameters<F>) => {
      if (full.has(name)) {
        throw Object.assign(new Error(`ENOSPC: no space left on device, ${name}`), {
          code: "ENOSPC",
          errno: -28,
          syscall: name,
        });
      }
      return call(...args);
    }) as F;
  const faked = {
    ...real,
    writeSync: seam("write", real.writeSync),
    mkdirSync: seam("mkdir", real.mkdirSync),
    linkSync: seam("link", real.linkSync),
    renameSync: seam("rename", real.renameSync),
    openSync: seam("open", real.openSync),
  };
  return { ...faked, default: faked };
});

const HOST = "this-host";
let home: string;
let store: Store;
let thread: string;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-leases-full-"));
  store = await openStore({ home, host: HOST });
  thread = newUlid();
});
afterEach(async () => {
  full.clear();
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

const locks = () => join(home, "locks");
const lockPath = () => join(locks(), `${thread}.lock`);
const left = () => readdirSync(locks());

async function fullDiskError(run: () => Promise<unknown>, ...calls: string[]) {
  for (const call of calls) full.add(call);
  const error = await caught(run);
  full.clear();
  return error;
}

describe("an exec lease on a full disk", () => {
  it("fails to take a lease with an IO error, leaving nothing in locks/", async () => {
    fs.mkdirSync(locks());
    for (const calls of [["write"], ["link", "open"]]) {
      const error = await fullDiskError(
        () => store.leases.acquire(thread, { command: "thread exec" }),
        ...calls,
      );
      expect(error.code).toBe("IO");
      expect(error.message).toContain(`${lockPath()}: `);
      expect(error.message).toContain("(ENOSPC)");
      expect(left()).toEqual([]);
    }
  });

  it("fails when the locks folder cannot be made", async () => {
    const error = await fullDiskError(
      () => store.leases.acquire(thread, { command: "thread exec" }),
      "mkdir",
    );
    expect(error.code).toBe("IO");
    expect(error.message).toContain(`${locks()}: `);
    expect(error.message).toContain("(ENOSPC)");
  });

  it("fails a takeover of a stale lease, leaving no guard and no temp file", async () => {
    fs.mkdirSync(locks());
    const stale = JSON.stringify({
      thread,
      token: "old-token",
      holder: { host: HOST, pid: deadPid(), startTime: "12345" },
      command: "thread exec",
      acquiredAt: "2025-01-01T00:00:00.000Z",
      expiresAt: "2025-01-01T00:00:30.000Z",
      child: null,
    });
    writeFileSync(lockPath(), stale);
    for (const calls of [["mkdir"], ["write"], ["rename"]]) {
      const error = await fullDiskError(
        () => store.leases.acquire(thread, { command: "thread exec" }),
        ...calls,
      );
      expect(error.code).toBe("IO");
      expect(error.message).toContain("(ENOSPC)");
      // The stale lease stays as it was (the next command takes it over); nothing else.
      expect(left()).toEqual([`${thread}.lock`]);
      expect(readFileSync(lockPath(), "utf8")).toBe(stale);
    }
    const { lease } = await store.leases.acquire(thread, { command: "thread exec" });
    await lease.release();
    expect(left()).toEqual([]);
  });

  it("fails recording the agent with an IO error; releasing then leaves no lock", async () => {
    const { lease } = await store.leases.acquire(thread, { command: "thread exec" });
    const error = await fullDiskError(
      () => lease.setChild({ pid: 4242, pgid: 4242, startTime: "1" }),
      "write",
    );
    expect(error.code).toBe("IO");
    expect(error.message).toContain(`${lockPath()}: `);
    expect(left()).toEqual([`${thread}.lock`]);
    await lease.release();
    expect(left()).toEqual([]);
  });
});
