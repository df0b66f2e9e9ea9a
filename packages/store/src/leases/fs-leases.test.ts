/**
 * What only the filesystem has of exec leases: lock files written by hand or by older versions,
 * garbage files, and the takeover guard. What every backend's leases do is in the conformance
 * suite (__testing__/conformance-leases.ts).
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, deadPid } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";
import { processIdentity } from "../locks/process-identity.js";
import { openStore } from "../open-store.js";

const HOST = "this-host";

let home: string;
let store: Store;
let thread: string;
let path: string;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-leases-"));
  store = await openStore({ home, host: HOST });
  thread = newUlid();
  path = join(home, "locks", `${thread}.lock`);
  mkdirSync(join(home, "locks"));
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

/** A lock file as uwf wrote it before leases had a host and an expiry. */
function writeLegacyLock(overrides: Record<string, unknown> = {}): void {
  writeFileSync(
    path,
    JSON.stringify({
      token: "old-token",
      holder: { pid: deadPid(), startTime: "12345" },
      acquiredAt: "2025-01-01T00:00:00.000Z",
      command: "thread exec",
      child: null,
      ...overrides,
    }),
  );
}

const tokenOnDisk = () => (JSON.parse(readFileSync(path, "utf8")) as { token: string }).token;
const backdate = (file: string, ageMs: number) => {
  const then = new Date(Date.now() - ageMs);
  utimesSync(file, then, then);
};

describe("lease files", () => {
  it("keeps a lease as locks/<thread>.lock naming its holder, with no temp file left", async () => {
    const { lease } = await store.leases.acquire(thread, { command: "thread exec" });
    await lease.renew();
    await lease.setChild({ pid: 4242, pgid: 4242, startTime: "1" });
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(lease.info());
    expect(lease.info().holder).toEqual({ host: HOST, ...processIdentity(process.pid) });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(home, "locks"))).toEqual([`${thread}.lock`]);
    await lease.release();
    expect(readdirSync(join(home, "locks"))).toEqual([]);
  });

  it("reads a legacy lock of a live holder as held on this host until it was acquired", async () => {
    writeLegacyLock({ holder: processIdentity(process.pid) });
    expect(await store.leases.read(thread)).toEqual({
      info: {
        thread,
        token: "old-token",
        holder: { host: HOST, ...processIdentity(process.pid) },
        command: "thread exec",
        acquiredAt: "2025-01-01T00:00:00.000Z",
        expiresAt: "2025-01-01T00:00:00.000Z",
        child: null,
      },
      alive: true,
    });
    expect((await caught(() => store.leases.acquire(thread, { command: "c" }))).code).toBe(
      "THREAD_BUSY",
    );
  });

  it("takes over a legacy lock of a dead holder, returning its child", async () => {
    const child = { pid: 4242, pgid: 4242, startTime: "7" };
    writeLegacyLock({ child });
    const { lease, replaced } = await store.leases.acquire(thread, { command: "thread exec" });
    expect(replaced).toMatchObject({ token: "old-token", holder: { host: HOST }, child });
    expect(tokenOnDisk()).toBe(lease.token);
  });

  it("takes over the lease of another host whose expiry passed, not before", async () => {
    const remote = {
      thread,
      token: "remote-token",
      holder: { host: "other-host", pid: process.pid, startTime: null },
      command: "thread exec",
      acquiredAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      child: null,
    };
    writeFileSync(path, JSON.stringify(remote));
    const busy = await caught(() => store.leases.acquire(thread, { command: "c" }));
    expect(busy.code).toBe("THREAD_BUSY");
    // `thread stop` signals the holder's process, which it can only do on that host.
    expect(busy.hint).toBe(
      `wait for it with \`uwf thread join ${thread}\` or stop it on other-host, where it runs, with \`uwf thread stop ${thread}\``,
    );
    writeFileSync(path, JSON.stringify({ ...remote, expiresAt: new Date(0).toISOString() }));
    const { replaced } = await store.leases.acquire(thread, { command: "c" });
    expect(replaced?.token).toBe("remote-token");
  });

  it("takes over an old garbage lock file at once", async () => {
    writeFileSync(path, "\0\0garbage");
    backdate(path, 60_000);
    expect(await store.leases.read(thread)).toBeNull();
    expect(await store.leases.live()).toEqual(new Set());
    const { lease, replaced } = await store.leases.acquire(thread, { command: "thread exec" });
    expect(replaced).toBeNull();
    expect(tokenOnDisk()).toBe(lease.token);
  });

  it("treats a fresh unreadable lock as being written, then takes it over", async () => {
    writeFileSync(path, "");
    // Maybe mid-write: not stale yet, so it is not cleared.
    expect(await store.leases.clearStale(thread)).toBeNull();
    expect(readFileSync(path, "utf8")).toBe("");
    const { lease, replaced } = await store.leases.acquire(thread, { command: "thread exec" });
    expect(replaced).toBeNull();
    expect(tokenOnDisk()).toBe(lease.token);
  });

  it("clears an old garbage lock file as stale", async () => {
    writeFileSync(path, "{");
    backdate(path, 60_000);
    expect(await store.leases.clearStale(thread)).toBeNull();
    expect(readdirSync(join(home, "locks"))).toEqual([]);
  });

  it("recovers from a takeover guard left by a taker that died", async () => {
    writeLegacyLock();
    const guard = `${path}.takeover`;
    mkdirSync(guard);
    backdate(guard, 60_000);
    const { lease, replaced } = await store.leases.acquire(thread, { command: "thread exec" });
    expect(replaced?.token).toBe("old-token");
    expect(tokenOnDisk()).toBe(lease.token);
    expect(readdirSync(join(home, "locks"))).toEqual([`${thread}.lock`]);
  });

  it("leaves a lock file that another holder rewrote when releasing", async () => {
    const { lease } = await store.leases.acquire(thread, { command: "thread exec" });
    writeLegacyLock({ token: "someone-else", holder: processIdentity(process.pid) });
    await lease.release();
    expect(tokenOnDisk()).toBe("someone-else");
    expect((await caught(() => lease.setChild(null))).code).toBe("LEASE_LOST");
  });
});
