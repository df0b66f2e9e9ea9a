import type { ThreadVerifyReport } from "@united-workforce/protocol";
import { isPlainObject } from "@united-workforce/protocol";
import { canonicalJson, UwfError } from "@united-workforce/util";
import { type VerifySource, verifyThread } from "../history/verify-thread.js";
import { receiptStatement } from "./statement.js";
import type { GitCheckOptions } from "./verify-git.js";

/** How many differences a check lists: the first ones say what is wrong. */
const MAX_DIFFERENCES = 20;

/** A receipt checked against the history it claims to be derived from. */
export interface ReceiptCheck {
  thread: string;
  head: string;
  ok: boolean;
  /** JSON paths where the receipt differs from the one derived, first ones first. */
  differences: string[];
}

/**
 * `uwf thread verify --receipt`: verify the thread the receipt names in `source` (hashes,
 * links, routes, then its git records) and check the receipt against it. A history that fails
 * is no ground for a receipt: the receipt then fails too, saying so.
 */
export async function verifyReceipt(
  source: VerifySource,
  receipt: unknown,
  git: GitCheckOptions,
): Promise<{ report: ThreadVerifyReport; check: ReceiptCheck }> {
  const { thread, head } = namedIn(receipt);
  const report = await verifyThread(source, thread, git);
  if (!report.ok) {
    const differences = [
      `thread ${thread}'s history fails verification: no receipt can rest on it`,
    ];
    return { report, check: { thread, head, ok: false, differences } };
  }
  return { report, check: await checkReceipt(source, receipt) };
}

/**
 * Derive `receipt` again from `source` (a store, or an export bundle read offline) at the
 * thread and head it names, and compare the two: a receipt is sound when it is exactly the
 * one its history gives. The head must be on the thread's chain (the thread may have gone on
 * since). The history itself is checked by `verifyThread`, which callers run beside this.
 */
export async function checkReceipt(source: VerifySource, receipt: unknown): Promise<ReceiptCheck> {
  const { thread, head } = namedIn(receipt);
  const pointer = await source.threads.get(thread);
  if (!(await onChain(source, pointer.head, pointer.start, head))) {
    return {
      thread,
      head,
      ok: false,
      differences: [`predicate.head: step ${head} is not on thread ${thread}'s chain`],
    };
  }
  const derived = await receiptStatement(source.cas, {
    thread,
    start: pointer.start,
    head,
    workflowHash: pointer.workflowHash,
  });
  const differences = differencesOf(derived, receipt, "").slice(0, MAX_DIFFERENCES);
  return { thread, head, ok: differences.length === 0, differences };
}

/** The thread and head a receipt names, or RECEIPT_INVALID when it is not a uwf receipt. */
function namedIn(receipt: unknown): { thread: string; head: string } {
  const predicate = isPlainObject(receipt) ? receipt.predicate : undefined;
  const thread = isPlainObject(predicate) ? predicate.thread : undefined;
  const head = isPlainObject(predicate) ? predicate.head : undefined;
  if (typeof thread !== "string" || typeof head !== "string") {
    throw new UwfError(
      "RECEIPT_INVALID",
      "the file is not a uwf receipt: it names no predicate.thread and predicate.head",
      { hint: "a receipt is what `uwf thread receipt <thread>` writes" },
    );
  }
  return { thread, head };
}

/** Whether `step` is on the chain from `head` back to `start`. */
async function onChain(
  source: VerifySource,
  head: string,
  start: string,
  step: string,
): Promise<boolean> {
  const seen = new Set<string>();
  for (let hash: string | null = head === start ? null : head; hash !== null; ) {
    if (hash === step) return true;
    if (seen.has(hash)) return false;
    seen.add(hash);
    hash = (await source.cas.getPayload<{ prev: string | null }>(hash, "step")).prev;
  }
  return step === start;
}

/** The JSON paths where `actual` is not `expected`, depth first. */
function differencesOf(expected: unknown, actual: unknown, path: string): string[] {
  if (canonicalJson(expected) === canonicalJson(actual)) return [];
  const bothObjects = isPlainObject(expected) && isPlainObject(actual);
  const bothArrays = Array.isArray(expected) && Array.isArray(actual);
  if (!bothObjects && !bothArrays) {
    return [`${path || "."}: expected ${preview(expected)}, found ${preview(actual)}`];
  }
  const a = expected as Record<string, unknown>;
  const b = actual as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((key) => {
    const at = bothArrays ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (!(key in b)) return [`${at}: missing`];
    if (!(key in a)) return [`${at}: not in the derived receipt`];
    return differencesOf(a[key], b[key], at);
  });
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
