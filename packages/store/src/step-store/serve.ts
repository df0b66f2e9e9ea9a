import { mkdtempSync, rmSync } from "node:fs";
import type { Server, Socket } from "node:net";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { makePrivateDir, nodeCrypto, nodeNet, nodeOs } from "@united-workforce/util";
import type { ThreadsStore } from "../api.js";
import type { Cas } from "../cas/cas.js";
import { lineReader, type StepStoreAnswer, type StepStoreRequest, wireError } from "./wire.js";

const MAX_SOCKET_PATH = 107;

/** A step store being served: the socket's path for the adapter, and its end. */
export interface ServedStepStore {
  readonly path: string;
  close(): void;
}

/**
 * Serve one step's adapter the store over a Unix socket in the home's private `run` folder: the
 * step's thread as uwf holds it (no read), nodes from `cas` (those the run keeps cost no round
 * trip), and the adapter's writes through `cas`, kept so that checking the step reads none of
 * them back. An adapter given this opens no connection of its own
 * (docs/decisions/step-store.md).
 */
export async function serveStepStore(
  store: { home: string; cas: Cas; threads: Pick<ThreadsStore, "get"> },
  pointer: ThreadPointer,
): Promise<ServedStepStore> {
  const name = `step-${nodeCrypto().randomBytes(8).toString("hex")}.sock`;
  const runDir = join(store.home, "run");
  // A socket's path has room for 107 bytes: a deep home serves from a private temp folder.
  const tempDir =
    Buffer.byteLength(join(runDir, name)) > MAX_SOCKET_PATH
      ? mkdtempSync(join(nodeOs().tmpdir(), "uwf-run-"))
      : null;
  makePrivateDir(tempDir ?? runDir);
  const path = join(tempDir ?? runDir, name);
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
  await listen(server, path);
  // The adapter's exit must not wait on uwf, nor uwf's on a socket it left open.
  server.unref();
  return {
    path,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      rmSync(tempDir ?? path, { recursive: true, force: true });
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
        // `fresh`: as stored now (a running agent looking for `thread steer` notes).
        const held = request.thread === pointer.thread && request.fresh !== true;
        const value = held ? pointer : await store.threads.get(request.thread);
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
