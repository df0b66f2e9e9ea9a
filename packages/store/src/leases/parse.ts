import { isPlainObject } from "@united-workforce/protocol";
import type { ChildIdentity, HolderIdentity, LeaseInfo } from "../api.js";

/**
 * Parse a stored lease, or null when it is not one. Leases written before holders had a host
 * and an expiry (plain pid locks) read as held on this host, expiring when acquired.
 */
export function parseLeaseInfo(text: string, thread: string, host: string): LeaseInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(value)) return null;
  const { token, holder, acquiredAt, command, child, expiresAt } = value;
  if (typeof token !== "string" || token === "" || !isPlainObject(holder)) return null;
  if (!isPid(holder.pid) || !(holder.startTime === null || typeof holder.startTime === "string")) {
    return null;
  }
  if (typeof acquiredAt !== "string" || typeof command !== "string") return null;
  const parsedChild = parseChild(child);
  if (parsedChild === undefined) return null;
  const identity: HolderIdentity = {
    host: typeof holder.host === "string" && holder.host !== "" ? holder.host : host,
    pid: holder.pid,
    startTime: holder.startTime,
  };
  return {
    thread,
    token,
    holder: identity,
    command,
    acquiredAt,
    expiresAt: typeof expiresAt === "string" ? expiresAt : acquiredAt,
    child: parsedChild,
  };
}

/** The child identity; null when none is recorded; undefined when it is malformed. */
function parseChild(child: unknown): ChildIdentity | null | undefined {
  if (child === undefined || child === null) return null;
  if (!isPlainObject(child) || !isPid(child.pid) || !isPid(child.pgid)) return undefined;
  if (!(child.startTime === null || typeof child.startTime === "string")) return undefined;
  return { pid: child.pid, pgid: child.pgid, startTime: child.startTime };
}

function isPid(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0;
}
