import { readFileSync } from "node:fs";

/** A process as it can be recognised later: a pid alone can be reused by another process. */
export interface ProcessIdentity {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where /proc is absent. */
  startTime: string | null;
}

interface ProcStat {
  state: string;
  pgrp: number;
  startTime: string;
}

function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // Field 2 is the command in parentheses and may itself contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, , pgrp] = fields;
  const startTime = fields[22 - 3];
  if (state === undefined || startTime === undefined) return null;
  return { state, pgrp: Number(pgrp), startTime };
}

let procMounted: boolean | undefined;
function hasProc(): boolean {
  procMounted ??= readProcStat(process.pid) !== null;
  return procMounted;
}

export function processIdentity(pid: number): ProcessIdentity {
  return { pid, startTime: readProcStat(pid)?.startTime ?? null };
}

let self: ProcessIdentity | undefined;
export function selfIdentity(): ProcessIdentity {
  self ??= processIdentity(process.pid);
  return { ...self };
}

/** Whether a pid exists at all (EPERM means it exists but belongs to someone else). */
export function pidExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The same process is still running: the pid exists, is not a zombie, and started at the
 * recorded time, so a reused pid cannot make a dead holder look alive.
 */
export function isAlive(id: ProcessIdentity): boolean {
  if (!pidExists(id.pid)) return false;
  const stat = readProcStat(id.pid);
  if (stat === null) return !hasProc();
  if (stat.state === "Z" || stat.state === "X") return false;
  return id.startTime === null || id.startTime === stat.startTime;
}

/** The process group of this process, so a takeover never signals its own group. */
export function ownProcessGroup(): number | null {
  return readProcStat(process.pid)?.pgrp ?? null;
}
