import type { ErrorCode, ThreadPointer } from "@united-workforce/protocol";
import { isUwfError, UwfError } from "@united-workforce/util";

/**
 * The step store's messages: one JSON object a line, each way, over the Unix socket uwf serves
 * an adapter (DESIGN §8, docs/adapter-protocol.md). Node bytes travel as base64.
 */
export type StepStoreRequest =
  | { id: number; op: "pointer"; thread: string; fresh?: boolean }
  | { id: number; op: "read"; hash: string }
  | { id: number; op: "has"; hash: string }
  | { id: number; op: "write"; nodes: WireNode[] };

export interface WireNode {
  hash: string;
  type: string;
  refs: string[];
  bytes: string;
}

export type StepStoreAnswer =
  | { id: number; ok: true; value: ThreadPointer | string | boolean | string[] | null }
  | { id: number; ok: false; error: { code: ErrorCode; message: string; hint: string | null } };

/** Call `onLine` for each complete line of a stream's chunks. */
export function lineReader(onLine: (line: string) => void): (chunk: Buffer) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk.toString("utf8");
    let end = pending.indexOf("\n");
    while (end >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (line !== "") onLine(line);
      end = pending.indexOf("\n");
    }
  };
}

/** A failure as the other side rebuilds it: a UwfError keeps its code and hint. */
export function wireError(error: unknown): Extract<StepStoreAnswer, { ok: false }>["error"] {
  if (isUwfError(error)) return { code: error.code, message: error.message, hint: error.hint };
  return { code: "STORE_UNAVAILABLE", message: String(error), hint: null };
}

export function fromWireError(error: Extract<StepStoreAnswer, { ok: false }>["error"]): UwfError {
  return new UwfError(error.code, error.message, { hint: error.hint });
}
