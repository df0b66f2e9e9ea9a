import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ANSWER_LINK_PATH,
  answerLinkMaker,
  LINK_KEY_FILE,
  linkClaims,
  linkCsrf,
  readLinkKey,
  signAnswerLink,
  stillWaiting,
  verifyAnswerLink,
} from "./answer-link.js";

const THREAD = "01KB7ZQ0000000000000000000";
const OTHER = "01KB7ZQ0000000000000000001";
const NOW = Date.parse("2026-12-06T10:00:00.000Z");
const HOUR = 3_600_000;

function waiting(overrides: Partial<ThreadPointer> = {}): ThreadPointer {
  return {
    thread: THREAD,
    head: "0123456789ABC",
    status: "suspended",
    suspended: { kind: "human", role: "approver", reason: "approve?" },
    updatedAt: "2026-12-06T09:59:00.000Z",
    ...overrides,
  } as ThreadPointer;
}

describe("answer links", () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "uwf-link-"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("makes the key once, for its owner only, and reads the same key after", () => {
    const key = readLinkKey(home);
    expect(key.length).toBe(32);
    expect(statSync(join(home, LINK_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readLinkKey(home).equals(key)).toBe(true);
    expect(readFileSync(join(home, LINK_KEY_FILE), "utf8").trim()).toBe(key.toString("base64url"));
  });

  it("verifies a link it signed, until it expires", () => {
    const key = readLinkKey(home);
    const claims = linkClaims(waiting(), NOW, 24);
    const token = signAnswerLink(key, claims);
    expect(token).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(verifyAnswerLink(key, token, NOW)).toEqual({ ok: true, claims });
    expect(verifyAnswerLink(key, token, NOW + 24 * HOUR - 1)).toMatchObject({ ok: true });
    expect(verifyAnswerLink(key, token, NOW + 24 * HOUR)).toEqual({
      ok: false,
      reason: "expired",
      claims,
    });
  });

  it("refuses a link changed in any part, or signed with another key", () => {
    const key = readLinkKey(home);
    const token = signAnswerLink(key, linkClaims(waiting(), NOW, 24));
    const parts = token.split(".");
    const changed = [
      // Another thread, another head, a later expiry, a flipped signature character.
      [parts[0], OTHER, ...parts.slice(2)],
      [parts[0], parts[1], "0123456789ABD", ...parts.slice(3)],
      [...parts.slice(0, 4), (NOW + 1000 * HOUR).toString(36), parts[5]],
      [...parts.slice(0, 5), `${parts[5]!.slice(0, -1)}${parts[5]!.endsWith("A") ? "B" : "A"}`],
    ].map((p) => p.join("."));
    for (const forged of [...changed, "", "1.x", `${token}.extra`]) {
      expect(verifyAnswerLink(key, forged, NOW)).toEqual({
        ok: false,
        reason: "forged",
        claims: null,
      });
    }
    const otherHome = mkdtempSync(join(tmpdir(), "uwf-link-"));
    try {
      expect(verifyAnswerLink(readLinkKey(otherHome), token, NOW)).toMatchObject({
        reason: "forged",
      });
    } finally {
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  it("matches only while its thread waits at the same head, the same wait", () => {
    const claims = linkClaims(waiting(), NOW, 24);
    expect(stillWaiting(claims, waiting(), "suspended")).toBe(true);
    // Answered: the head moved on.
    expect(stillWaiting(claims, waiting({ head: "0123456789ABD" }), "suspended")).toBe(false);
    // The answer's step runs (a retried failure keeps its head until it ends).
    expect(stillWaiting(claims, waiting(), "running")).toBe(false);
    // It failed again at the same head: another wait, written later.
    expect(
      stillWaiting(claims, waiting({ updatedAt: "2026-12-06T10:05:00.000Z" }), "suspended"),
    ).toBe(false);
    expect(stillWaiting(claims, waiting({ status: "idle", suspended: null }), "idle")).toBe(false);
    expect(stillWaiting(claims, null, "suspended")).toBe(false);
  });

  it("gives each link its own CSRF token", () => {
    const key = readLinkKey(home);
    const a = signAnswerLink(key, linkClaims(waiting(), NOW, 24));
    const b = signAnswerLink(key, linkClaims(waiting(), NOW + 1, 24));
    expect(linkCsrf(key, a)).not.toBe(linkCsrf(key, b));
    expect(linkCsrf(key, a)).toBe(linkCsrf(key, a));
  });

  it("links a waiting thread's notification to its answer page, and no other", () => {
    const make = answerLinkMaker(home, "https://uwf.example.com/", 2, () => NOW);
    const link = make(waiting());
    expect(link).toMatch(/^https:\/\/uwf\.example\.com\/answer\/1\.[A-Za-z0-9._-]+$/);
    const token = link!.slice(`https://uwf.example.com${ANSWER_LINK_PATH}`.length);
    expect(verifyAnswerLink(readLinkKey(home), token, NOW)).toMatchObject({
      ok: true,
      claims: { thread: THREAD, expiresAtMs: NOW + 2 * HOUR },
    });
    expect(make(waiting({ status: "completed", suspended: null }))).toBeNull();
  });
});
