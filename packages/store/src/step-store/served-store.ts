import type { Socket } from "node:net";
import type { ThreadPointer } from "@united-workforce/protocol";
import { errorMessage, nodeNet, UwfError } from "@united-workforce/util";
import type { ThreadsStore } from "../api.js";
import { Cas } from "../cas/cas.js";
import type { CasBackend } from "../cas/cas-backend.js";
import {
  fromWireError,
  lineReader,
  type StepStoreAnswer,
  type StepStoreRequest,
  type WireNode,
} from "./wire.js";

/** What an adapter's step needs of the store: the thread, and the CAS to read and write. */
export interface StepStore {
  readonly cas: Cas;
  readonly threads: Pick<ThreadsStore, "get">;
  /**
   * The thread as stored now. Absent: `threads.get` reads it so. The store uwf serves answers
   * `threads.get` with the step's thread as uwf held it when the step began.
   */
  readonly freshPointer?: (thread: string) => Promise<ThreadPointer>;
  close(): Promise<void>;
}

/** A request before it is numbered (each kind keeps its own fields). */
type Unnumbered<R> = R extends { id: number } ? Omit<R, "id"> : never;

/**
 * The store uwf serves this step's adapter at `path` (serve.ts): reads and writes go through
 * uwf's own connection, so the adapter opens none. Only what a step does is served: the thread
 * and node reads, `has` and writes.
 */
export async function openServedStore(
  path: string,
  options: { validatorCacheDir?: string } = {},
): Promise<StepStore> {
  const socket = await connectTo(path);
  const pending = new Map<
    number,
    { answered(answer: StepStoreAnswer): void; failed(error: Error): void }
  >();
  let nextId = 1;
  let closed: Error | null = null;
  const failAll = (error: Error) => {
    closed ??= error;
    for (const request of pending.values()) request.failed(closed);
    pending.clear();
  };
  socket.on(
    "data",
    lineReader((line) => {
      const answer = JSON.parse(line) as StepStoreAnswer;
      const request = pending.get(answer.id);
      pending.delete(answer.id);
      // Referenced only while an answer is awaited: a finished adapter exits without closing it.
      if (pending.size === 0) socket.unref();
      request?.answered(answer);
    }),
  );
  socket.on("error", (error) => failAll(unavailable(path, error)));
  socket.on("close", () => failAll(unavailable(path, new Error("uwf closed the step's store"))));

  const ask = <T>(request: Unnumbered<StepStoreRequest>): Promise<T> => {
    if (closed !== null) return Promise.reject(closed);
    const id = nextId++;
    if (pending.size === 0) socket.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, {
        answered: (answer) =>
          answer.ok ? resolve(answer.value as T) : reject(fromWireError(answer.error)),
        failed: reject,
      });
      socket.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  };

  const backend: CasBackend = {
    async read(hash) {
      const bytes = await ask<string | null>({ op: "read", hash });
      return bytes === null ? null : Buffer.from(bytes, "base64");
    },
    async write(nodes) {
      const wire: WireNode[] = nodes.map((node) => ({
        hash: node.hash,
        type: node.type,
        refs: [...node.refs],
        bytes: Buffer.from(node.bytes).toString("base64"),
      }));
      return new Set(await ask<string[]>({ op: "write", nodes: wire }));
    },
    has: (hash) => ask<boolean>({ op: "has", hash }),
    withPrefix: () => Promise.reject(notServed("hash prefixes")),
    remove: () => Promise.reject(notServed("removing nodes")),
    list: () => {
      throw notServed("listing nodes");
    },
    locate: (hash) => `node ${hash} (the store uwf serves this step)`,
  };
  return {
    cas: new Cas(backend, options),
    threads: { get: (thread) => ask<ThreadPointer>({ op: "pointer", thread }) },
    freshPointer: (thread) => ask<ThreadPointer>({ op: "pointer", thread, fresh: true }),
    async close() {
      socket.end();
    },
  };
}

function connectTo(path: string): Promise<Socket> {
  const { connect } = nodeNet();
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.unref();
      resolve(socket);
    });
    socket.once("error", (error) => reject(unavailable(path, error)));
  });
}

function unavailable(path: string, cause: unknown): UwfError {
  return new UwfError(
    "STORE_UNAVAILABLE",
    `cannot use the step's store uwf serves at ${path}: ${errorMessage(cause)}`,
    {
      hint: "the uwf that started this adapter has ended or stopped the step; run the step again with `uwf thread exec`",
      cause,
    },
  );
}

function notServed(what: string): UwfError {
  return new UwfError(
    "STORE_UNAVAILABLE",
    `the step's store uwf serves an adapter offers no ${what}`,
  );
}
