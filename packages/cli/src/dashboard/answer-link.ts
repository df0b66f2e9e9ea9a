import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { ioError, isErrnoError, PRIVATE_FILE_MODE } from "@united-workforce/util";

// A signed answer link (`dashboard.publicUrl`): a notification carries it, and whoever holds it
// may open that one thread's answer form and send it once, without the dashboard's token.
//
// It signs the thread, when it expires, and the wait it answers: the thread's head and the time
// its pointer was written. Answering moves the thread on (its head or, for a retried failure,
// its status and then its time), so the link no longer matches: single use without a database
// of used links. The key is a secret file in UWF_HOME, made on first need.

/** The key's file: 32 random bytes, base64url, for its owner only. */
export const LINK_KEY_FILE = "dashboard-link.key";

/** How long a link is valid when config.yaml's `dashboard.linkHours` does not say. */
export const DEFAULT_LINK_HOURS = 24;

/** The path an answer link opens under the public URL; the rest is the signed token. */
export const ANSWER_LINK_PATH = "/answer/";

/** What a link grants: answering `thread` while it still waits as it did when signed. */
export interface AnswerLinkClaims {
  thread: string;
  /** The head the thread had when the link was made. */
  head: string;
  /** The pointer's `updatedAt` then, in ms: a second wait at the same head is another wait. */
  waitedAtMs: number;
  expiresAtMs: number;
}

export type LinkVerdict =
  | { ok: true; claims: AnswerLinkClaims }
  | { ok: false; reason: "forged" | "expired"; claims: AnswerLinkClaims | null };

const VERSION = "1";
const THREAD = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const HASH = /^[0-9A-HJKMNP-TV-Z]{13}$/;
const BASE36 = /^[0-9a-z]{1,12}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

/** The link key, made (0600, exclusively: two processes agree on one) when there is none yet. */
export function readLinkKey(home: string): Buffer {
  const file = join(home, LINK_KEY_FILE);
  const existing = readKeyFile(file);
  if (existing !== null) return existing;
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, `${randomBytes(32).toString("base64url")}\n`, {
      mode: PRIVATE_FILE_MODE,
      flag: "wx",
    });
    // link() fails when the name exists: whoever made it first, everyone reads the same key.
    linkSync(tmp, file);
  } catch (error) {
    if (!(isErrnoError(error) && error.code === "EEXIST")) throw ioError(error, file);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // Not made: nothing to clean.
    }
  }
  const made = readKeyFile(file);
  if (made === null) throw ioError(new Error("the key file vanished"), file);
  return made;
}

function readKeyFile(file: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (isErrnoError(error) && error.code === "ENOENT") return null;
    throw ioError(error, file);
  }
  const key = Buffer.from(text.trim(), "base64url");
  if (key.length < 32) throw ioError(new Error("the key is shorter than 32 bytes"), file);
  return key;
}

/** The claims of a link for a suspended thread's pointer, valid for `hours` from `nowMs`. */
export function linkClaims(pointer: ThreadPointer, nowMs: number, hours: number): AnswerLinkClaims {
  return {
    thread: pointer.thread,
    head: pointer.head,
    waitedAtMs: Date.parse(pointer.updatedAt),
    expiresAtMs: nowMs + Math.round(hours * 3_600_000),
  };
}

/**
 * What the notifier calls for a thread that waits: a fresh link to its answer form at
 * `publicUrl`, valid for `hours`; null when the thread does not wait. The key is read (or
 * made) on the first link.
 */
export function answerLinkMaker(
  home: string,
  publicUrl: string,
  hours: number,
  now: () => number = Date.now,
): (pointer: ThreadPointer) => string | null {
  let key: Buffer | undefined;
  return (pointer) => {
    if (pointer.status !== "suspended" || pointer.suspended === null) return null;
    key ??= readLinkKey(home);
    return answerLinkUrl(publicUrl, signAnswerLink(key, linkClaims(pointer, now(), hours)));
  };
}

/** The token: `1.<thread>.<head>.<waited>.<expires>.<mac>`, URL-safe, about 110 characters. */
export function signAnswerLink(key: Buffer, claims: AnswerLinkClaims): string {
  const body = [
    VERSION,
    claims.thread,
    claims.head,
    claims.waitedAtMs.toString(36),
    claims.expiresAtMs.toString(36),
  ].join(".");
  return `${body}.${mac(key, body)}`;
}

/** The link to put in a notification: the public URL, the answer path, the token. */
export function answerLinkUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}${ANSWER_LINK_PATH}${token}`;
}

/**
 * Whether `token` is a link this key signed and has not expired. It does not say whether the
 * thread still waits as it did: `stillWaiting` compares the claims with its pointer.
 */
export function verifyAnswerLink(key: Buffer, token: string, nowMs: number): LinkVerdict {
  const parts = token.split(".");
  if (parts.length !== 6) return { ok: false, reason: "forged", claims: null };
  const [version, thread, head, waited, expires, signature] = parts as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (
    version !== VERSION ||
    !THREAD.test(thread) ||
    !HASH.test(head) ||
    !BASE36.test(waited) ||
    !BASE36.test(expires) ||
    !MAC.test(signature)
  )
    return { ok: false, reason: "forged", claims: null };
  const expected = Buffer.from(mac(key, parts.slice(0, 5).join(".")), "utf8");
  const presented = Buffer.from(signature, "utf8");
  if (!timingSafeEqual(expected, presented)) return { ok: false, reason: "forged", claims: null };
  const claims: AnswerLinkClaims = {
    thread,
    head,
    waitedAtMs: Number.parseInt(waited, 36),
    expiresAtMs: Number.parseInt(expires, 36),
  };
  if (nowMs >= claims.expiresAtMs) return { ok: false, reason: "expired", claims };
  return { ok: true, claims };
}

/**
 * Whether the thread still waits at the head and since the time the link names. `status` is
 * the derived one: a thread whose answer's step runs is `running`, its pointer not yet moved.
 */
export function stillWaiting(
  claims: AnswerLinkClaims,
  pointer: ThreadPointer | null,
  status: string,
): boolean {
  return (
    pointer !== null &&
    status === "suspended" &&
    pointer.suspended !== null &&
    pointer.head === claims.head &&
    Date.parse(pointer.updatedAt) === claims.waitedAtMs
  );
}

/**
 * The CSRF token of a link's form: derived from the link, so the form needs no session, and
 * one link's page cannot post another link's answer.
 */
export function linkCsrf(key: Buffer, token: string): string {
  return mac(key, `csrf.${token}`);
}

function mac(key: Buffer, text: string): string {
  return createHmac("sha256", key).update(text).digest("base64url");
}
