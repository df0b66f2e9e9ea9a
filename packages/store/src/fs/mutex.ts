import { mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { isAlive, selfIdentity } from "../locks/process-identity.js";
import { codeOf, DIR_MODE, delay, isMissing, unlinkQuietly, writeNewFile } from "./files.js";

/** An empty or unparsable mutex younger than this may be mid-write. */
const WRITING_GRACE_MS = 2_000;
/** Waiting for a busy mutex gives up after this long (its holder keeps it for microseconds). */
const WAIT_MS = 10_000;

let counter = 0;

/**
 * Run `critical` while holding a cross-process mutex file: the read-compare-write of a
 * compare-and-swap on the filesystem. The file names its holder (pid and start time), so a
 * holder killed inside the critical section is recognised as dead at once and its mutex taken.
 * `busy` makes the error thrown when the mutex stays held too long.
 */
export async function withFileMutex<T>(
  path: string,
  critical: () => T,
  busy: () => Error,
): Promise<T> {
  const self = selfIdentity();
  const token = `${self.pid} ${self.startTime ?? "-"} ${counter++}`;
  const deadline = Date.now() + WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(path, token)) break;
    if (isStale(path)) {
      unlinkQuietly(path);
      continue;
    }
    if (Date.now() > deadline) throw busy();
    await delay(Math.min(1 + attempt, 20) * Math.random());
  }
  try {
    return critical();
  } finally {
    releaseIfOurs(path, token);
  }
}

function tryCreate(path: string, token: string): boolean {
  try {
    writeNewFile(path, Buffer.from(token));
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    if (isMissing(error)) {
      mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
      return tryCreate(path, token);
    }
    throw error;
  }
}

function isStale(path: string): boolean {
  let text: string;
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
  const [pid, startTime] = text.split(" ");
  if (pid === undefined || startTime === undefined || !/^\d+$/.test(pid)) {
    return ageMs > WRITING_GRACE_MS;
  }
  return !isAlive({ pid: Number(pid), startTime: startTime === "-" ? null : startTime });
}

function releaseIfOurs(path: string, token: string): void {
  try {
    if (readFileSync(path, "utf8") === token) unlinkQuietly(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}
