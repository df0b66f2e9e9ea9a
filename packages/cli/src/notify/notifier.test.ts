import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ThreadPointer, UwfEvent } from "@united-workforce/protocol";
import { createEventStream } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import {
  attachNotifier,
  notificationDocument,
  notificationText,
  notifyMoment,
} from "./notifier.js";

const THREAD = "01KB7ZQ0000000000000000000";
const TS = "2026-12-06T09:00:00.000Z";

function suspended(kind: string): UwfEvent {
  return {
    event: "thread.suspended",
    ts: TS,
    thread: THREAD,
    role: "review",
    reason: "approve?",
    kind,
  } as UwfEvent;
}

describe("notifyMoment", () => {
  it("names the moment of each suspension kind, and completion", () => {
    const kinds = ["question", "human", "failure", "fanout", "budget", "guard", "retry"];
    expect(kinds.map((kind) => notifyMoment(suspended(kind)))).toEqual([
      "waiting",
      "waiting",
      "failed",
      "failed",
      "budget",
      "budget",
      null,
    ]);
    expect(notifyMoment({ event: "thread.completed", ts: TS, thread: THREAD, message: "ok" })).toBe(
      "completed",
    );
    expect(notifyMoment({ event: "step.aborted", ts: TS, thread: THREAD, role: "r" })).toBeNull();
  });
});

describe("notificationDocument", () => {
  const pointer = { title: "Ship it", workflow: "review", currentRole: "write" } as ThreadPointer;

  it("holds the thread, its title and workflow, the role, the reason and the time", () => {
    const event = suspended("human") as Extract<UwfEvent, { event: "thread.suspended" }>;
    const doc = notificationDocument("waiting", event, pointer);
    expect(doc).toEqual({
      event: "waiting",
      thread: THREAD,
      title: "Ship it",
      workflow: "review",
      role: "review",
      reason: "approve?",
      kind: "human",
      at: TS,
    });
    expect(notificationText(doc)).toBe(
      `uwf: thread "Ship it" (${THREAD}) [review] waits for an answer at review: approve?`,
    );
  });

  it("carries an answer link when one is made, in the document and the chat text", () => {
    const event = suspended("human") as Extract<UwfEvent, { event: "thread.suspended" }>;
    const link = "https://uwf.example.com/answer/1.x";
    const doc = notificationDocument("waiting", event, pointer, link);
    expect(doc.link).toBe(link);
    expect(notificationText(doc)).toBe(
      `uwf: thread "Ship it" (${THREAD}) [review] waits for an answer at review: approve?\nAnswer: ${link}`,
    );
    expect("link" in notificationDocument("waiting", event, pointer)).toBe(false);
  });

  it("gives a completed thread's last role and end message; nulls without a pointer", () => {
    const event = { event: "thread.completed", ts: TS, thread: THREAD, message: "done" } as const;
    expect(notificationDocument("completed", event, pointer)).toMatchObject({
      role: "write",
      reason: "done",
      kind: null,
    });
    expect(notificationDocument("completed", event, null)).toMatchObject({
      title: null,
      workflow: null,
      role: null,
    });
  });
});

describe("attachNotifier", () => {
  it("logs a notifier that cannot start as notify.failed, and settles", async () => {
    const seen: UwfEvent[] = [];
    const events = createEventStream((e) => seen.push(e));
    const notifier = attachNotifier({
      entries: [
        { on: ["completed"], command: ["/nonexistent/notify-command"] },
        { on: ["waiting"], command: ["/nonexistent/never-run"] },
      ],
      events,
      readPointer: () => Promise.reject(new Error("no store")),
      cwd: process.cwd(),
      env: { PATH: process.env.PATH },
    });
    events.emit("thread.completed", { thread: THREAD, message: null });
    await notifier.settled();
    const failed = seen.filter((e) => e.event === "notify.failed");
    expect(failed).toEqual([
      expect.objectContaining({
        thread: THREAD,
        on: "completed",
        notifier: "/nonexistent/notify-command",
      }),
    ]);
  });

  it("logs a webhook's HTTP error and a webhook that does not answer in time", async () => {
    // One answers 500, the other never answers: the request's timeout gives it up.
    const server = createServer((request, response) => {
      if (request.url === "/error") response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const seen: UwfEvent[] = [];
    const events = createEventStream((e) => seen.push(e));
    const notifier = attachNotifier({
      entries: [
        { on: ["failed"], webhook: `${base}/error` },
        { on: ["failed"], webhook: `${base}/silent`, timeoutSeconds: 0.05 },
      ],
      events,
      readPointer: () => Promise.reject(new Error("no store")),
      cwd: process.cwd(),
      env: {},
    });
    events.emit("thread.suspended", { thread: THREAD, role: "r", reason: "x", kind: "failure" });
    await notifier.settled();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const reasons = seen.flatMap((e) => (e.event === "notify.failed" ? [e.reason] : []));
    expect(reasons).toHaveLength(2);
    expect(reasons).toContain("HTTP 500 Internal Server Error");
    expect(reasons.find((reason) => reason !== "HTTP 500 Internal Server Error")).toMatch(
      /timeout|aborted/i,
    );
  });
});
