import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { followLog } from "./follow.js";
import type { LogRecord as LogEvent } from "./log-reader.js";

let temp: { home: string };
beforeEach(() => {
  temp = { home: mkdtempSync(join(tmpdir(), "uwf-follow-")) };
  mkdirSync(join(temp.home, "logs"));
});
afterEach(() => rmSync(temp.home, { recursive: true, force: true }));

const line = (event: string, fields: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ ts: "2026-11-24T00:00:00.000Z", level: "info", event, pid: 1, ...fields })}\n`;

/**
 * Follow until `count` events arrived; `act` runs once following has begun, `onEach` after each
 * event (to write more only once the follower has seen what came before).
 */
async function collect(
  count: number,
  act: () => void,
  from?: "start" | "end",
  onEach?: (event: LogEvent) => void,
): Promise<LogEvent[]> {
  const controller = new AbortController();
  const events: LogEvent[] = [];
  const following = followLog(
    { home: temp.home, signal: controller.signal, intervalMs: 5, ...(from ? { from } : {}) },
    (event) => {
      events.push(event);
      if (events.length === count) controller.abort();
      onEach?.(event);
    },
  );
  act();
  await following;
  return events;
}

describe("followLog", () => {
  it("sees only lines written after it began, by default", async () => {
    const file = join(temp.home, "logs", "2026-11-24.jsonl");
    writeFileSync(file, line("old"));
    const events = await collect(2, () => {
      appendFileSync(file, line("step.start", { thread: "T1" }));
      appendFileSync(file, line("step.done", { thread: "T1" }));
    });
    expect(events.map((e) => e.event)).toEqual(["step.start", "step.done"]);
    expect(events[0]?.thread).toBe("T1");
  });

  it("replays the newest file with from: start", async () => {
    const file = join(temp.home, "logs", "2026-11-24.jsonl");
    writeFileSync(file, line("a") + line("b"));
    const events = await collect(2, () => {}, "start");
    expect(events.map((e) => e.event)).toEqual(["a", "b"]);
  });

  it("with from: start and a day, replays that day's file and those after it, oldest first", async () => {
    const logs = join(temp.home, "logs");
    writeFileSync(join(logs, "2026-11-22.jsonl"), line("too early"));
    writeFileSync(join(logs, "2026-11-23.jsonl"), line("before midnight"));
    writeFileSync(join(logs, "2026-11-24.jsonl"), line("after midnight"));
    const controller = new AbortController();
    const seen: string[] = [];
    const following = followLog(
      {
        home: temp.home,
        signal: controller.signal,
        from: "start",
        sinceDay: "2026-11-23",
        intervalMs: 60_000,
        onCaughtUp: () => {
          seen.push("caught up");
          controller.abort();
        },
      },
      (event) => seen.push(event.event),
    );
    await following;
    expect(seen).toEqual(["before midnight", "after midnight", "caught up"]);
  });

  it("joins a line written in two parts and skips lines that are not JSON", async () => {
    const file = join(temp.home, "logs", "2026-11-24.jsonl");
    writeFileSync(file, "");
    const whole = line("split");
    const events = await collect(2, () => {
      appendFileSync(file, "not json\n");
      appendFileSync(file, whole.slice(0, 20));
      setImmediate(() => {
        appendFileSync(file, whole.slice(20));
        appendFileSync(file, line("after"));
      });
    });
    expect(events.map((e) => e.event)).toEqual(["split", "after"]);
  });

  it("moves on to the next day's file, and finds the first file when there was none", async () => {
    const events = await collect(
      3,
      () => writeFileSync(join(temp.home, "logs", "2026-11-24.jsonl"), line("first")),
      "end",
      (event) => {
        if (event.event !== "first") return;
        // The old day's last line and the new day's first appear together: both are read, in order.
        appendFileSync(join(temp.home, "logs", "2026-11-24.jsonl"), line("late"));
        writeFileSync(join(temp.home, "logs", "2026-11-25.jsonl"), line("next day"));
      },
    );
    expect(events.map((e) => e.event)).toEqual(["first", "late", "next day"]);
  });

  it("says when the history is delivered, and reads the last lines once stopped", async () => {
    const file = join(temp.home, "logs", "2026-11-24.jsonl");
    writeFileSync(file, line("old"));
    const controller = new AbortController();
    const seen: string[] = [];
    const following = followLog(
      {
        home: temp.home,
        signal: controller.signal,
        from: "start",
        intervalMs: 60_000,
        onCaughtUp: () => seen.push("caught up"),
      },
      (event) => seen.push(event.event),
    );
    // The writer's last line lands, then the follower is told to stop before its next poll.
    appendFileSync(file, line("last"));
    controller.abort();
    await following;
    expect(seen).toEqual(["old", "caught up", "last"]);
  });
});
