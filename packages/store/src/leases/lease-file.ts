/**
 * A lease file, `<home>/locks/<thread>.lock`: its LeaseInfo as JSON, always written whole
 * (created complete, replaced by a rename), so a reader sees one version or none.
 */
import { readFileSync, renameSync, statSync } from "node:fs";
import { ioError } from "@united-workforce/util";
import type { LeaseInfo } from "../api.js";
import { isMissing, unlinkQuietly, writeNewFile } from "../fs/files.js";
import { parseLeaseInfo } from "./parse.js";

/** What a lease file holds: nothing, a lease, or bytes that are not one (yet). */
export type FileState =
  | { kind: "missing" }
  | { kind: "valid"; info: LeaseInfo }
  | { kind: "garbage"; ageMs: number };

let tempCounter = 0;

export function encodeLease(info: LeaseInfo): Buffer {
  return Buffer.from(`${JSON.stringify(info, null, 2)}\n`, "utf8");
}

export function replaceFile(path: string, info: LeaseInfo): void {
  const temp = `${path}.${process.pid}.${tempCounter++}.tmp`;
  writeNewFile(temp, encodeLease(info), path);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkQuietly(temp);
    throw ioError(error, path);
  }
}

export function leaseThreadOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.slice(0, -".lock".length);
}

/** `host()` is asked only of a lease file that exists: a missing one needs no host name. */
export function readLeaseFile(path: string, thread: string, host: () => string): FileState {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isMissing(error)) return { kind: "missing" };
    throw ioError(error, path);
  }
  const info = parseLeaseInfo(text, thread, host());
  if (info !== null) return { kind: "valid", info };
  // Only an unparsable lease needs its age; a valid one is read without a stat.
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch (error) {
    if (isMissing(error)) return { kind: "missing" };
    throw error;
  }
  return { kind: "garbage", ageMs: Date.now() - mtimeMs };
}
