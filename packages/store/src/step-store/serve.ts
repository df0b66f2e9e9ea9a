import { mkdtempSync, rmSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { nodeNet } from "@united-workforce/util";
import type { ThreadsStore } from "../api.js";
import type { Cas } from "../cas/cas.js";
import { lineReader, type StepStoreAnswer, type StepStoreRequest, wireError } from "./wire.js";

/** A step store being served: the socket's path for the adapter, and its end. */
export interface ServedStepStore {
  readonly path: string;
  close(): void;
}

/**
 * Serve one step's adapter the store over a Unix socket in a private folder: the step's thread
 * as uwf holds it (no read), nodes from `cas` (those the run keeps cost no round trip), and the
 * adapter's writes through `cas`, kept so that checking the step reads none of them back. An
 * adapter given this opens no connection of its own (docs/decisions/step-store.md).
 */
export async function serveStepStore(
  store: { cas: Cas; threads: Pick<ThreadsStore, "get"> },
  pointer: ThreadPointer,
): Promise<ServedStepStore> {
  const dir = mkdtempSync(join(tmpdir(), "uwf-step-"));
  const path = join(dir, "store.sock");
  const sockets = new Set<Socket>();
  const { createServer } = nodeNet();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.on(
      "data",
      lineReader((line) => {
        void answer(store, pointer, line).then((reply) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
        });
      }),
    );
  });
  try {
    await listen(server, path);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  // The adapter's exit must not wait on uwf, nor uwf's on a socket it left open.
  server.unref();
  return {
    path,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

async function answer(
  store: { cas: Cas; threads: Pick<ThreadsStore, "get"> },
  pointer: ThreadPointer,
  line: string,
): Promise<StepStoreAnswer> {
  let request: StepStoreRequest;
  try {
    request = JSON.parse(line) as StepStoreRequest;
  } catch {
    return { id: -1, ok: false, error: wireError(new Error("not a JSON request")) };
  }
  try {
    switch (request.op) {
      case "pointer": {
        const value =
          request.thread === pointer.thread ? pointer : await store.threads.get(request.thread);
        return { id: request.id, ok: true, value };
      }
      case "read": {
        const bytes = await store.cas.readBytes(request.hash);
        const value = bytes === null ? null : Buffer.from(bytes).toString("base64");
        return { id: request.id, ok: true, value };
      }
      case "has":
        return { id: request.id, ok: true, value: await store.cas.has(request.hash) };
      case "write": {
        const created = await store.cas.writeKept(
          request.nodes.map((node) => ({
            hash: node.hash,
            type: node.type,
            refs: node.refs,
            bytes: Buffer.from(node.bytes, "base64"),
          })),
        );
        return { id: request.id, ok: true, value: [...created] };
      }
      default:
        throw new Error(`unknown request ${JSON.stringify((request as { op?: unknown }).op)}`);
    }
  } catch (error) {
    return { id: request.id, ok: false, error: wireError(error) };
  }
}
