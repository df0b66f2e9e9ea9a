import type { ThreadEvent } from "@united-workforce/protocol";
import { type ThreadStatusRow, threadEventOf } from "./events.js";

export interface FeedHandlers {
  /** A uwf event of the thread (checked against its schema). */
  onEvent?(event: ThreadEvent): void;
  /** The thread's row as the store has it, sent after each event. */
  onStatus?(row: ThreadStatusRow): void;
  /** At every (re)connection. */
  onOpen?(): void;
}

/**
 * Follow the live feed of `thread` (a thread id, or `*` for every thread's status), showing the
 * connection's state in the header. The browser reconnects by itself. The feed's messages are
 * uwf's events (the process log's, without its envelope); its `status` messages are rows.
 */
export function followFeed(thread: string, handlers: FeedHandlers): void {
  const conn = document.getElementById("conn");
  const source = new EventSource(`/events?thread=${encodeURIComponent(thread)}`);
  source.onopen = () => {
    if (conn) {
      conn.textContent = "live";
      conn.className = "conn on";
    }
    handlers.onOpen?.();
  };
  source.onerror = () => {
    if (conn) {
      conn.textContent = "reconnecting…";
      conn.className = "conn";
    }
  };
  source.onmessage = (message: MessageEvent<string>) => {
    const event = threadEventOf(parse(message.data));
    if (event !== null) handlers.onEvent?.(event);
  };
  source.addEventListener("status", (message) => {
    const row = parse((message as MessageEvent<string>).data);
    if (row !== null) handlers.onStatus?.(row as ThreadStatusRow);
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
