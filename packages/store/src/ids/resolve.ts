import { isHash, isThreadId, MIN_PREFIX_LENGTH, normalizeId } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { Store } from "../api.js";
import { BUILTIN_HASHES } from "../cas/builtins.js";

/** Candidates named in an ambiguity error; more are counted, not listed. */
const SHOWN_CANDIDATES = 10;
const BASE32 = /^[0-9A-HJKMNP-TV-Z]+$/;

/**
 * The one hash `text` names: a full hash as is (whether stored or not: the command says what
 * is missing), or the only stored hash (built-in schemas included) that starts with it.
 */
export async function resolveHash(store: Pick<Store, "cas">, text: string): Promise<string> {
  const id = normalizeId(text);
  if (isHash(id)) return id;
  checkPrefix(text, id, 13, "hash");
  const stored = await store.cas.backend.withPrefix(id, SHOWN_CANDIDATES + 1);
  const builtins = Object.values(BUILTIN_HASHES).filter((hash) => hash.startsWith(id));
  const matches = [...new Set([...stored, ...builtins])].sort();
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new UwfError("CAS_NOT_FOUND", `no node's hash starts with ${id}`, {
      hint: "check the hash; `uwf step list <thread>` and `uwf workflow list` print hashes",
      details: { hash: id },
    });
  }
  throw ambiguous("hash", id, matches);
}

/** The one thread `text` names: a full id as is, or the only thread id that starts with it. */
export async function resolveThread(store: Pick<Store, "threads">, text: string): Promise<string> {
  const id = normalizeId(text);
  if (isThreadId(id)) return id;
  checkPrefix(text, id, 26, "thread id");
  const matches = await store.threads.withPrefix(id, SHOWN_CANDIDATES + 1);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new UwfError("THREAD_NOT_FOUND", `no thread id starts with ${id}`, {
      hint: "`uwf thread list` shows the threads",
      details: { thread: id },
    });
  }
  throw ambiguous("thread id", id, matches);
}

function checkPrefix(text: string, id: string, full: number, what: string): void {
  if (!BASE32.test(id) || id.length > full) {
    throw new UwfError(
      what === "hash" ? "HASH_INVALID" : "USAGE",
      `${JSON.stringify(text)} is not a ${what} or a prefix of one`,
      {
        hint: `a ${what} is ${full} Crockford Base32 characters (0-9 and A-Z without I, L, O, U); any unique prefix of ${MIN_PREFIX_LENGTH} or more works`,
      },
    );
  }
  if (id.length < MIN_PREFIX_LENGTH) {
    throw new UwfError(
      what === "hash" ? "HASH_INVALID" : "USAGE",
      `${what} prefix ${JSON.stringify(text)} is too short: give at least ${MIN_PREFIX_LENGTH} characters`,
      { hint: `type more of the ${what}, or all ${full} characters` },
    );
  }
}

function ambiguous(what: string, id: string, matches: readonly string[]): UwfError {
  const shown = matches.slice(0, SHOWN_CANDIDATES);
  const more = matches.length > SHOWN_CANDIDATES ? ", and more" : "";
  return new UwfError(
    "ID_AMBIGUOUS",
    `${what} prefix ${id} is ambiguous: it matches ${shown.join(", ")}${more}`,
    {
      hint: `type more characters of the ${what} so that only one matches`,
      details: { prefix: id, candidates: shown },
    },
  );
}
