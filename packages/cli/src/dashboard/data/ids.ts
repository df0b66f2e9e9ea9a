import type { Runner } from "@united-workforce/engine";
import type { ThreadPointer } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";

// What a request names, checked before anything is read. Like every reader in data/ (what
// the pages and the JSON API show, one function per request), it goes through the engine and
// store APIs the commands use, never the store's files.

/** A step's or a workflow's hash, as a URL may name it. */
export const HASH = /^[0-9A-HJKMNP-TV-Z]{13}$/;
const THREAD_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** A thread the request names, when it is a thread id (else THREAD_NOT_FOUND). */
export async function readPointer(runner: Runner, id: string): Promise<ThreadPointer> {
  if (!THREAD_ID.test(id)) throw notFound("THREAD_NOT_FOUND", `"${id}" is not a thread id`);
  return runner.store.threads.get(id);
}

/** What a request named is not there: the page says so, with the way back. */
export function notFound(
  code: "THREAD_NOT_FOUND" | "STEP_NOT_FOUND" | "WORKFLOW_NOT_FOUND",
  message: string,
): UwfError {
  return new UwfError(code, message, { hint: "Go back to the list and pick one there." });
}
