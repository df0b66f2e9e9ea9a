import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUwfError, newUlid, type UwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireLock, adoptLock, readLock, threadLockPath } from "./lock.js";
import type { LockInfo } from "./lock-file.js";
import { isAlive, processIdentity } from "./process-identity.js";

let home: string;
let threadId: string;
let path: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-locks-"));
  threadId = newUlid();
  path = threadLockPath(home, threadId);
  mkdirSync(join(home, "locks"));
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(home, { recursive: true, force: true });
});

function caught(fn: () => unknown): UwfError {
  try {
    fn();
  } catch (error) {
    if (isUwfError(error)) return error;
    throw error;
  }
  throw new Error("expected a UwfError");
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const result = spawnSync(process.execPath, ["-e", "0"]);
  return result.pid!;
}

function writeLock(info: Partial<LockInfo>): void {
  const full: LockInfo = {
    token: "old-token",
    holder: { pid: deadPid(), startTime: "12345" },
    acquiredAt: "2025-01-01T00:00:00.000Z",
    command: "thread exec",
    child: null,
    ...info,
  };
  writeFileSync(path, JSON.stringify(full));
}

const tokenOnDisk = () => (JSON.parse(readFileSync(path, "utf8")) as LockInfo).token;

describe("process identity", () => {
  it("recognises this process, and not a dead or reused pid", () => {
    const self = processIdentity(process.pid);
    expect(self.startTime).toMatch(/^\d+$/);
    expect(isAlive(self)).toBe(true);
    expect(isAlive({ pid: process.pid, startTime: "1" })).toBe(false);
    expect(isAlive({ pid: deadPid(), startTime: null })).toBe(false);
  });
});

describe("acquireLock", () => {
  it("creates the lock, and a second acquire fails at once naming the holder", () => {
    const lock = acquireLock(path, "thread exec");
    expect(readLock(path)).toEqual({ info: lock.info(), alive: true });
    expect(lock.info()).toMatchObject({
      holder: { pid: process.pid },
      command: "thread exec",
      child: null,
    });
    const error = caught(() => acquireLock(path, "thread exec"));
    expect(error.code).toBe("THREAD_BUSY");
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.details).toMatchObject({ pid: process.pid });
    expect(error.hint).toBe(
      `wait for it with \`uwf thread join ${threadId}\` or stop it with \`uwf thread stop ${threadId}\``,
    );
    lock.release();
    expect(readLock(path)).toBeNull();
  });

  it("takes over the lock of a dead holder", () => {
    writeLock({});
    const lock = acquireLock(path, "thread exec");
    expect(tokenOnDisk()).toBe(lock.token);
  });

  it("takes over a lock whose pid is alive but was reused by another process", () => {
    writeLock({ holder: { pid: process.pid, startTime: "1" } });
    expect(readLock(path)?.alive).toBe(false);
    const lock = acquireLock(path, "thread exec");
    expect(tokenOnDisk()).toBe(lock.token);
  });

  it("takes over an old garbage lock file", () => {
    writeFileSync(path, "\0\0garbage");
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(readLock(path)).toBeNull();
    const lock = acquireLock(path, "thread exec");
    expect(tokenOnDisk()).toBe(lock.token);
  });

  it("waits briefly for a fresh unreadable lock (maybe mid-write), then takes it over", () => {
    writeFileSync(path, "");
    const started = Date.now();
    const lock = acquireLock(path, "thread exec");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
    expect(tokenOnDisk()).toBe(lock.token);
  });

  it("kills the process group of a dead holder's child before taking over", async () => {
    const sleeper = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    children.push(sleeper);
    const exited = once(sleeper, "exit");
    const child = { ...processIdentity(sleeper.pid!), pgid: sleeper.pid! };
    expect(isAlive(child)).toBe(true);
    writeLock({ child });
    acquireLock(path, "thread exec");
    const [code, signal] = await exited;
    expect([code, signal]).toEqual([null, "SIGKILL"]);
  });

  it("leaves a recorded child alone when its pid now belongs to another process", async () => {
    const sleeper = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    children.push(sleeper);
    writeLock({ child: { pid: sleeper.pid!, startTime: "1", pgid: sleeper.pid! } });
    acquireLock(path, "thread exec");
    expect(isAlive(processIdentity(sleeper.pid!))).toBe(true);
  });

  it("recovers from a takeover guard left by a taker that died", () => {
    writeLock({});
    const guard = `${path}.takeover`;
    mkdirSync(guard);
    const old = new Date(Date.now() - 60_000);
    utimesSync(guard, old, old);
    const lock = acquireLock(path, "thread exec");
    expect(tokenOnDisk()).toBe(lock.token);
  });

  it("refuses a malformed thread id", () => {
    expect(caught(() => threadLockPath(home, "../x")).code).toBe("USAGE");
  });
});

describe("lock handles", () => {
  it("records the child and transfers the lock to a worker that adopts it", () => {
    const lock = acquireLock(path, "thread exec");
    const child = {
      pid: process.pid,
      startTime: processIdentity(process.pid).startTime,
      pgid: 999999,
    };
    lock.setChild(child);
    expect(readLock(path)?.info.child).toEqual(child);
    const worker = { pid: deadPid(), startTime: "7" };
    lock.transfer(worker);
    expect(readLock(path)).toMatchObject({ info: { holder: worker }, alive: false });

    const adopted = adoptLock(path, lock.token);
    expect(readLock(path)).toMatchObject({ info: { holder: { pid: process.pid } }, alive: true });
    expect(adopted.info().child).toEqual(child);
    adopted.release();
    expect(readLock(path)).toBeNull();
  });

  it("refuses adoption with a wrong token and leaves the lock as it was", () => {
    const lock = acquireLock(path, "thread exec");
    expect(caught(() => adoptLock(path, "wrong")).code).toBe("THREAD_BUSY");
    expect(tokenOnDisk()).toBe(lock.token);
    lock.release();
    expect(caught(() => adoptLock(path, lock.token)).code).toBe("THREAD_STATE");
  });

  it("release with a token that no longer matches leaves the file", () => {
    const lock = acquireLock(path, "thread exec");
    writeLock({ token: "someone-else", holder: processIdentity(process.pid) });
    lock.release();
    expect(tokenOnDisk()).toBe("someone-else");
    expect(caught(() => lock.setChild(null)).code).toBe("THREAD_STATE");
  });
});
