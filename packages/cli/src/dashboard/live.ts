import type { ServerResponse } from "node:http";
import type { Runner } from "@united-workforce/engine";
import type { UwfEvent } from "@united-workforce/protocol";
import { eventOf, followLog } from "@united-workforce/util";
import { type ThreadRow, threadStatus } from "./data/threads.js";

/**
 * The live feed: every run, in any process, writes its events to the process log; this follows
 * the log once for the whole server and passes each event (checked against its schema, without
 * the log's envelope) to the pages that watch its thread, as server-sent events; the page's
 * script checks each again. After each event the thread's row is read from the store and sent
 * too, as a `status` message, so the pages show what the store says rather than guess from
 * events. A run ends by releasing its lease, which logs nothing: after a step ends the status is
 * read again until the thread is no longer running (or its next step starts).
 */

const STEP_ENDS = new Set([
  "step.done",
  "step.failed",
  "step.aborted",
  "thread.suspended",
  "thread.completed",
]);
const RECHECK_MS = 300;
const HEARTBEAT_MS = 15_000;

interface Watcher {
  /** A thread id, or `*` for every thread (without their output lines). */
  thread: string;
  res: ServerResponse;
}

export class LiveFeed {
  readonly #runner: Runner;
  readonly #watchers = new Set<Watcher>();
  readonly #onLogEvent: (event: UwfEvent) => void;
  readonly #onRow: (row: ThreadRow) => void;
  readonly #pending = new Map<string, NodeJS.Timeout>();
  /** Threads whose step ended while their exec may still hold the lease. */
  readonly #ending = new Set<string>();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #stopped: Promise<void>;
  #closed = false;

  /**
   * `onLogEvent` sees every logged event, with or without a thread (e.g. to drop caches);
   * `onRow` every thread row read after its events (e.g. to keep an index).
   */
  constructor(
    runner: Runner,
    home: string,
    signal: AbortSignal,
    onLogEvent: (event: UwfEvent) => void = () => {},
    onRow: (row: ThreadRow) => void = () => {},
  ) {
    this.#runner = runner;
    this.#onLogEvent = onLogEvent;
    this.#onRow = onRow;
    this.#stopped = followLog({ home, signal, intervalMs: 150 }, (record) => {
      const event = eventOf(record);
      if (event !== null) this.#onEvent(event);
    });
    this.#heartbeat = setInterval(() => {
      for (const w of this.#watchers) w.res.write(": ping\n\n");
    }, HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  watch(thread: string, res: ServerResponse): void {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
    res.write("retry: 1000\n: connected\n\n");
    const watcher = { thread, res };
    this.#watchers.add(watcher);
    res.on("close", () => this.#watchers.delete(watcher));
  }

  get watchers(): number {
    return this.#watchers.size;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    for (const t of this.#pending.values()) clearTimeout(t);
    for (const w of this.#watchers) w.res.end();
    this.#watchers.clear();
    await this.#stopped;
  }

  #onEvent(event: UwfEvent): void {
    this.#onLogEvent(event);
    if (!("thread" in event)) return;
    const { thread } = event;
    // The envelope (`level`, `pid`, `command`) says which process wrote it: the page needs none.
    const {
      level: _level,
      pid: _pid,
      command: _command,
      ...sent
    } = event as Record<string, unknown>;
    this.#send(thread, `data: ${JSON.stringify(sent)}\n\n`, event.event !== "adapter.output");
    if (event.event === "step.start") this.#ending.delete(thread);
    if (STEP_ENDS.has(event.event)) this.#ending.add(thread);
    if (event.event !== "adapter.output") this.#refresh(thread, 50);
  }

  /** An event's lines to the pages of `thread`, and (`toAll`) to the thread list. */
  #send(thread: string, text: string, toAll: boolean): void {
    for (const w of this.#watchers) {
      if (w.thread === thread || (toAll && w.thread === "*")) w.res.write(text);
    }
  }

  #refresh(thread: string, delayMs: number): void {
    if (this.#closed || this.#pending.has(thread)) return;
    const timer = setTimeout(async () => {
      this.#pending.delete(thread);
      if (this.#closed) return;
      try {
        const row = await threadStatus(this.#runner, thread);
        this.#onRow(row);
        this.#send(thread, `event: status\ndata: ${JSON.stringify(row)}\n\n`, true);
        if (row.status === "running" && this.#ending.has(thread)) this.#refresh(thread, RECHECK_MS);
        else this.#ending.delete(thread);
      } catch {
        this.#ending.delete(thread);
      }
    }, delayMs);
    this.#pending.set(thread, timer);
  }
}
