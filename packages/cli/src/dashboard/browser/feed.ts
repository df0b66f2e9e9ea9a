import type { FeedEvent } from "./events.js";

/**
 * Follow the live feed of `thread` (a thread id, or `*` for every thread's status), showing the
 * connection's state in the header. The browser reconnects by itself; `onOpen` runs at every
 * (re)connection.
 */
export function followFeed(
  thread: string,
  onEvent: (event: FeedEvent) => void,
  onOpen: () => void = () => {},
): void {
  const conn = document.getElementById("conn");
  const source = new EventSource(`/events?thread=${encodeURIComponent(thread)}`);
  source.onopen = () => {
    if (conn) {
      conn.textContent = "live";
      conn.className = "conn on";
    }
    onOpen();
  };
  source.onerror = () => {
    if (conn) {
      conn.textContent = "reconnecting…";
      conn.className = "conn";
    }
  };
  source.onmessage = (message: MessageEvent<string>) => {
    let event: FeedEvent;
    try {
      // Trusted as sent: the server's feed is the only writer.
      event = JSON.parse(message.data) as FeedEvent;
    } catch {
      return;
    }
    onEvent(event);
  };
}
