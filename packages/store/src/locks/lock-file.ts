import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ProcessIdentity } from "./process-identity.js";

export interface LockInfo {
  token: string;
  holder: ProcessIdentity;
  acquiredAt: string;
  command: string;
  /** The adapter process group this holder runs, so a takeover can stop it too. */
  child: (ProcessIdentity & { pgid: number }) | null;
}

export type LockFileState =
  | { kind: "missing" }
  | { kind: "valid"; info: LockInfo }
  | { kind: "garbage"; ageMs: number };

let tempCounter = 0;

export function encodeLockInfo(info: LockInfo): string {
  return `${JSON.stringify(info, null, 2)}\n`;
}

export function readLockFile(path: string): LockFileState {
  let text: string;
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw error;
  }
  const info = parseLockInfo(text);
  return info === null ? { kind: "garbage", ageMs: Date.now() - mtimeMs } : { kind: "valid", info };
}

/**
 * Create the lock file only if none exists, complete from its first instant: the content goes
 * to a temp file that is then hard-linked to the lock path (link fails if the path exists), so
 * a competing process never reads a half-written lock.
 */
export function createLockFile(path: string, info: LockInfo): boolean {
  const data = encodeLockInfo(info);
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${tempCounter++}.tmp`);
  writeFileSync(temp, data, { flag: "wx" });
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    return createWithoutLink(path, data);
  } finally {
    unlinkQuietly(temp);
  }
}

// Filesystems without hard links: O_EXCL still decides the winner; a reader may briefly see an
// empty file, which acquireLock treats as "being written".
function createWithoutLink(path: string, data: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, data);
  } finally {
    closeSync(fd);
  }
  return true;
}

export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function parseLockInfo(text: string): LockInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  const { token, holder, acquiredAt, command, child } = value;
  if (typeof token !== "string" || token === "" || !isIdentity(holder)) return null;
  if (typeof acquiredAt !== "string" || typeof command !== "string") return null;
  if (child === undefined || child === null)
    return { ...(value as unknown as LockInfo), child: null };
  if (!(isIdentity(child) && isPid((child as unknown as Record<string, unknown>).pgid)))
    return null;
  return value as unknown as LockInfo;
}

function isIdentity(value: unknown): value is ProcessIdentity {
  return (
    isRecord(value) &&
    isPid(value.pid) &&
    (value.startTime === null || typeof value.startTime === "string")
  );
}

function isPid(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
