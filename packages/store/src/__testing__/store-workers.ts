import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { StoreBackends, StoreOptions } from "../api.js";
import { storeDistDir } from "./built-store.js";

/** For tests only: stores opened in other processes (store-worker.mjs), driven by requests. */

const workerScript = join(dirname(fileURLToPath(import.meta.url)), "store-worker.mjs");

/** What a worker answered: the operation's result, or the error it threw (as data). */
export type WorkerAnswer<T> =
  | { value: T; error?: undefined }
  | {
      value?: undefined;
      error: { code: string | null; message: string; details?: Record<string, unknown> };
    };

export interface StoreWorker {
  readonly pid: number;
  /** Run one store operation in the worker (see store-worker.mjs for the operations). */
  call<T = unknown>(op: string, ...args: unknown[]): Promise<WorkerAnswer<T>>;
  /** SIGKILL the worker and wait until it is gone: whatever it held, it held when it died. */
  kill(): Promise<void>;
  /** End its input: it releases its leases, closes the store and exits. */
  close(): Promise<void>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

/** File URLs of built backend packages, by `StoreBackends` key, for workers to import. */
export type WorkerBackends = Partial<Record<keyof StoreBackends, string>>;

/**
 * Start `count` workers on the store `options` opens (through `backends`, for a store in a
 * backend package); resolves once every one has opened it.
 */
export async function startStoreWorkers(
  count: number,
  options: StoreOptions,
  backends: WorkerBackends = {},
): Promise<StoreWorker[]> {
  return Promise.all(Array.from({ length: count }, () => startStoreWorker(options, backends)));
}

export async function startStoreWorker(
  options: StoreOptions,
  backends: WorkerBackends = {},
): Promise<StoreWorker> {
  const distUrl = pathToFileURL(join(storeDistDir, "index.js")).href;
  const { backends: _loaders, ...data } = options;
  const args = [workerScript, distUrl, JSON.stringify(data), JSON.stringify(backends)];
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  running.add(child);
  const exited = once(child, "exit").then(() => {
    running.delete(child);
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const pending = new Map<number, (answer: WorkerAnswer<unknown>) => void>();
  let ready: (pid: number) => void = () => {};
  const started = new Promise<number>((resolve, reject) => {
    ready = resolve;
    exited.then(() => reject(new Error(`store worker exited before it was ready:\n${stderr}`)));
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    const {
      ready: readyPid,
      id,
      ...answer
    } = JSON.parse(line) as {
      ready?: number;
      id?: number;
    } & WorkerAnswer<unknown>;
    if (readyPid !== undefined) ready(readyPid);
    else pending.get(id!)?.(answer);
  });
  const pid = await started;
  let nextId = 0;
  return {
    pid,
    call<T>(op: string, ...args: unknown[]): Promise<WorkerAnswer<T>> {
      const id = nextId++;
      const answer = new Promise<WorkerAnswer<T>>((resolve, reject) => {
        pending.set(id, resolve as (answer: WorkerAnswer<unknown>) => void);
        exited.then(() => reject(new Error(`store worker ${pid} exited during ${op}:\n${stderr}`)));
      });
      child.stdin.write(`${JSON.stringify({ id, op, args })}\n`);
      return answer;
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
    async close() {
      child.stdin.end();
      await exited;
      if (child.exitCode !== 0) throw new Error(`store worker ${pid} failed:\n${stderr}`);
    },
  };
}

/** Kill every worker still running (after each test). */
export async function killStoreWorkers(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    }),
  );
}
