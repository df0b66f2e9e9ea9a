import type { ThreadEvent, Usage } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { ProgressView } from "./progress.js";
import { progressStyle } from "./terminal.js";

const THREAD = "01M85RF4Z61GPTZ5WHXXZZW617";
const T0 = Date.UTC(2026, 10, 24, 3, 9, 24);
const at = (ms: number): string => new Date(ms).toISOString();
const ESC = "\u001b";

function view(
  mode: "live" | "lines" | "quiet",
  options: { color?: boolean; columns?: number; thread?: string; following?: boolean } = {},
) {
  const writes: string[] = [];
  let now = T0;
  const progress = new ProgressView({
    ...(options.thread === undefined ? {} : { thread: options.thread }),
    ...(options.following === undefined ? {} : { following: options.following }),
    mode,
    color: options.color ?? false,
    write: (text) => writes.push(text),
    columns: () => options.columns ?? 100,
    now: () => now,
    tickMs: 0,
  });
  return {
    progress,
    writes,
    at(ms: number) {
      now = T0 + ms;
    },
    /** Everything written, as one string. */
    all: () => writes.join(""),
  };
}

const started: ThreadEvent = {
  event: "step.start",
  thread: THREAD,
  role: "greeter",
  agent: "uwf-mock",
  stepNumber: 2,
  cwd: "/work",
  ts: at(T0),
};
const output = (line: string, atMs = T0 + 1000): ThreadEvent => ({
  event: "adapter.output",
  thread: THREAD,
  role: "greeter",
  line,
  ts: at(atMs),
});
const usage: Usage = {
  inputTokens: 1200,
  outputTokens: 340,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  costUsd: 0.0123,
  turns: 1,
  durationMs: 4200,
};
const finished = (u: Usage | null): ThreadEvent => ({
  event: "step.done",
  thread: THREAD,
  role: "greeter",
  status: "done",
  step: "FTD0EF5FT35BD",
  durationMs: 4200,
  ...(u === null ? {} : { usage: u }),
  ts: at(T0 + 4200),
});
const failed: ThreadEvent = {
  event: "step.failed",
  thread: THREAD,
  role: "greeter",
  reason:
    'agent "uwf-mock" for role "greeter" exited with code 3\n--- adapter stderr (tail) ---\nworking on it\nboom: no model',
  ts: at(T0 + 1500),
};

describe("ProgressView, live (a terminal)", () => {
  it("shows one status line per running step and redraws it in place as output and time go by", () => {
    const v = view("live");
    v.progress.handle(started);
    expect(v.writes).toEqual(["⠋ 01M85RF4Z6 #2 greeter (uwf-mock) 0s\n"]);
    v.at(1000);
    v.progress.handle(output("reading \u001b[31mthe\u001b[0m task"));
    expect(v.writes[1]).toBe(
      `${ESC}[1A\r${ESC}[J⠋ 01M85RF4Z6 #2 greeter (uwf-mock) 1s  reading the task\n`,
    );
    v.at(65_000);
    v.progress.tick();
    expect(v.writes[2]).toBe(
      `${ESC}[1A\r${ESC}[J⠙ 01M85RF4Z6 #2 greeter (uwf-mock) 1m05s  reading the task\n`,
    );
  });

  it("cuts the status line to the terminal's width", () => {
    const v = view("live", { columns: 50 });
    v.progress.handle(started);
    v.progress.handle(output("x".repeat(200)));
    const line = v.writes[1]!.replace(`${ESC}[1A\r${ESC}[J`, "").trimEnd();
    expect(line).toBe("⠋ 01M85RF4Z6 #2 greeter (uwf-mock) 0s  xxxxxxxxx…");
    const wide = view("live", { columns: 50 });
    wide.progress.handle(started);
    wide.progress.handle(output("日本語".repeat(30)));
    const cut = wide.writes[1]!.replace(`${ESC}[1A\r${ESC}[J`, "").trimEnd();
    // Each of these characters takes two columns: 49 columns hold four and the ellipsis.
    expect(cut).toBe("⠋ 01M85RF4Z6 #2 greeter (uwf-mock) 0s  日本語日…");
  });

  it("replaces the status line with a final line: status, duration, tokens, cost", () => {
    const v = view("live");
    v.progress.handle(started);
    v.progress.handle(finished(usage));
    expect(v.writes[1]).toBe(
      `${ESC}[1A\r${ESC}[J✓ 01M85RF4Z6 #2 greeter → done  4.2 s · 1,200 in / 340 out tokens · $0.0123  FTD0EF5FT35BD\n`,
    );
    // Nothing is left to redraw: a tick writes nothing.
    v.progress.tick();
    expect(v.writes).toHaveLength(2);
  });

  it("says unknown for tokens and cost the agent did not report, never 0", () => {
    const v = view("live");
    v.progress.handle(started);
    v.progress.handle(finished(null));
    expect(v.writes[1]).toContain("4.2 s · tokens unknown · cost unknown");
    const partly = view("live");
    partly.progress.handle(started);
    partly.progress.handle(finished({ ...usage, outputTokens: null, costUsd: 0.0004 }));
    expect(partly.writes[1]).toContain("1,200 in / ? out tokens · $0.0004");
  });

  it("reports a failure once, with the agent's last output that the status line only hinted at", () => {
    const v = view("live");
    v.progress.handle(started);
    v.progress.handle(output("working on it"));
    v.progress.handle(failed);
    v.progress.handle({
      event: "thread.suspended",
      thread: THREAD,
      role: "greeter",
      reason: failed.event === "step.failed" ? failed.reason : "",
      kind: "failure",
      ts: at(T0 + 1500),
    });
    expect(v.writes).toHaveLength(3);
    expect(v.writes[2]).toBe(
      `${ESC}[1A\r${ESC}[J✗ 01M85RF4Z6 #2 greeter failed after 1.5 s: agent "uwf-mock" for role "greeter" exited with code 3\n  agent's last output:\n    working on it\n    boom: no model\n`,
    );
  });

  it("reports a failure found after a good step (its edge cannot be routed)", () => {
    const v = view("live");
    v.progress.handle(started);
    v.progress.handle(finished(usage));
    v.progress.handle({
      event: "thread.suspended",
      thread: THREAD,
      role: "greeter",
      reason: "the prompt of graph[greeter][done] rendered blank",
      kind: "failure",
      ts: at(T0 + 4200),
    });
    expect(v.writes[2]).toBe(
      "✗ 01M85RF4Z6 greeter failed: the prompt of graph[greeter][done] rendered blank\n",
    );
  });

  it("leaves a question and completion to the result", () => {
    const v = view("live");
    v.progress.handle(started);
    v.progress.handle(finished(usage));
    v.progress.handle({
      event: "thread.suspended",
      thread: THREAD,
      role: "greeter",
      reason: "Which Ada?",
      kind: "question",
      ts: at(T0),
    });
    v.progress.handle({ event: "thread.completed", thread: THREAD, message: "done", ts: at(T0) });
    expect(v.writes).toHaveLength(2);
  });

  it("colours only when asked, and marks an interrupted step when it stops", () => {
    const plain = view("live");
    plain.progress.handle(started);
    plain.at(3000);
    plain.progress.stop();
    expect(plain.all()).not.toContain(`${ESC}[32m`);
    expect(plain.all()).not.toContain(`${ESC}[2m`);
    expect(plain.writes.at(-1)).toBe(`${ESC}[1A\r${ESC}[J■ #2 greeter interrupted after 3.0 s\n`);
    const follower = view("lines");
    follower.progress.handle(started);
    follower.at(3000);
    follower.progress.stop("left");
    expect(follower.writes.at(-1)).toMatch(
      /^\d\d:\d\d:\d\d … #2 greeter still running \(3\.0 s so far\)\n$/,
    );
    const coloured = view("live", { color: true });
    coloured.progress.handle(started);
    coloured.progress.handle(finished(usage));
    expect(coloured.writes[1]).toContain(`${ESC}[32m✓ ${ESC}[39m`);
  });
});

describe("ProgressView, lines (CI logs, pipes)", () => {
  it("prints one timestamped line per event and never moves the cursor", () => {
    const v = view("lines");
    v.progress.handle(started);
    v.progress.handle(output("working on it"));
    v.progress.handle(output("   "));
    v.progress.handle(finished(usage));
    v.progress.tick();
    const text = v.all();
    expect(text).not.toContain(ESC);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^\d\d:\d\d:\d\d /);
    expect(lines[0]).toMatch(
      /▶ #2 greeter \(uwf-mock\) started on thread 01M85RF4Z61GPTZ5WHXXZZW617$/,
    );
    expect(lines[1]).toMatch(/ {2}greeter │ working on it$/);
    expect(lines[2]).toMatch(
      /✓ #2 greeter → done {2}4\.2 s · 1,200 in \/ 340 out tokens · \$0\.0123 · FTD0EF5FT35BD$/,
    );
  });

  it("does not repeat the agent's output it already printed when the agent fails", () => {
    const v = view("lines");
    v.progress.handle(started);
    v.progress.handle(output("working on it"));
    v.progress.handle(failed);
    expect(v.all().match(/working on it/g)).toHaveLength(1);
    expect(v.writes.at(-1)).toMatch(
      /^\d\d:\d\d:\d\d ✗ #2 greeter failed after 1\.5 s: agent "uwf-mock" for role "greeter" exited with code 3\n$/,
    );
  });
});

describe("ProgressView, quiet", () => {
  it("prints nothing but a failure, with the agent's last output", () => {
    const v = view("quiet");
    v.progress.handle(started);
    v.progress.handle(output("working on it"));
    v.progress.handle(finished(usage));
    expect(v.writes).toEqual([]);
    v.progress.handle(started);
    v.progress.handle(failed);
    expect(v.all()).toBe(
      '✗ #2 greeter failed after 1.5 s: agent "uwf-mock" for role "greeter" exited with code 3\n  agent\'s last output:\n    working on it\n    boom: no model\n',
    );
  });
});

describe("progressStyle", () => {
  const facts = {
    columns: 100 as number | undefined,
    env: {} as Record<string, string | undefined>,
    format: "text" as const,
    quiet: false,
  };
  it("redraws only on a terminal that has a width, is not dumb and is not CI", () => {
    expect(progressStyle(facts)).toEqual({ mode: "live", color: true });
    expect(progressStyle({ ...facts, columns: undefined }).mode).toBe("lines");
    expect(progressStyle({ ...facts, columns: 0 }).mode).toBe("lines");
    expect(progressStyle({ ...facts, env: { TERM: "dumb" } }).mode).toBe("lines");
    expect(progressStyle({ ...facts, env: { CI: "true" } }).mode).toBe("lines");
    expect(progressStyle({ ...facts, env: { CI: "false" } }).mode).toBe("live");
    expect(progressStyle({ ...facts, quiet: true }).mode).toBe("quiet");
  });
  it("colours never with NO_COLOR, a json or yaml result, or off a terminal", () => {
    expect(progressStyle({ ...facts, env: { NO_COLOR: "1" } })).toEqual({
      mode: "live",
      color: false,
    });
    expect(progressStyle({ ...facts, format: "json" }).color).toBe(false);
    expect(progressStyle({ ...facts, format: "yaml" }).color).toBe(false);
    expect(progressStyle({ ...facts, columns: undefined }).color).toBe(false);
  });
});

describe("a step retried after a transient failure", () => {
  const retrying: ThreadEvent = {
    event: "step.retry",
    thread: THREAD,
    role: "greeter",
    retry: 1,
    maxRetries: 3,
    delayMs: 10_000,
    reason: "uwf-mock: rate limited (HTTP 429)",
    ts: at(T0 + 2000),
  };

  it("says why, which retry and how long it waits, and keeps the step running", () => {
    const v = view("lines");
    v.progress.handle(started);
    v.progress.handle(retrying);
    expect(v.all()).toContain(
      "↻ greeter: uwf-mock: rate limited (HTTP 429); retry 1 of 3 in 10.0 s",
    );
    v.progress.handle(finished(null));
    expect(v.all()).toContain("greeter → done");
  });

  it("says nothing in quiet mode", () => {
    const v = view("quiet");
    v.progress.handle(retrying);
    expect(v.all()).not.toContain("↻");
  });

  it("says until when a waiting exec waits for the retry time", () => {
    const waiting: ThreadEvent = {
      event: "exec.wait",
      thread: THREAD,
      role: "greeter",
      retryAfter: "2026-11-24T04:00:00.000Z",
      ts: at(T0),
    };
    // `thread watch` of a background exec --wait.
    const v = view("lines", { following: true });
    v.progress.handle(waiting);
    expect(v.all()).toContain("⏸ greeter: waiting until 2026-11-24T04:00:00.000Z to retry");
    // The exec that waits says how to stop waiting.
    const own = view("lines");
    own.progress.handle(waiting);
    expect(own.all()).toBe(
      'waiting until 2026-11-24T04:00:00.000Z to retry role "greeter" (Ctrl-C stops waiting)\n',
    );
    const quiet = view("quiet");
    quiet.progress.handle(waiting);
    expect(quiet.all()).not.toContain("⏸");
  });
});

describe("a fan-out", () => {
  const CHILD_A = "01M86337P7QDTBZZRNPEPR6Z8B";
  // Children's ids are one millisecond apart (the item's index): their first ten characters differ.
  const CHILD_B = "01M86337P8R9JEW9ZW702GGTM0";
  const childStarted = (thread: string): ThreadEvent => ({ ...started, thread, stepNumber: 1 });

  it("shows one live line per running child, and says when the fan-out starts and joins", () => {
    const v = view("live");
    v.progress.handle({
      event: "fanout.started",
      thread: THREAD,
      role: "collect",
      children: 20,
      concurrency: 4,
      ts: at(T0),
    });
    v.progress.handle(childStarted(CHILD_A));
    v.progress.handle(childStarted(CHILD_B));
    const screen = v.writes.at(-1)!;
    expect(v.all()).toContain("01M85RF4Z6 fans out: 20 children, 4 at a time, then collect");
    expect(screen).toContain(`${CHILD_A.slice(0, 10)} #1 greeter`);
    expect(screen).toContain(`${CHILD_B.slice(0, 10)} #1 greeter`);
    v.progress.handle({
      event: "fanout.child",
      thread: THREAD,
      child: CHILD_B,
      index: 3,
      status: "failed",
      reason: "exited with code 9",
      ts: at(T0),
    });
    v.progress.handle({
      event: "fanout.joined",
      thread: THREAD,
      role: "collect",
      stepNumber: 2,
      completed: 19,
      failed: 1,
      ts: at(T0),
    });
    expect(v.all()).toContain(`child ${CHILD_B.slice(0, 10)} (item 3) failed\n`);
    expect(v.all()).toContain(
      "⇇ #2 collect joined the children of 01M85RF4Z6: 19 completed, 1 failed",
    );
  });

  it("names threads by their titles, a child by its item, when their events give one", () => {
    const titled = (event: ThreadEvent, title: string): ThreadEvent => ({
      ...(event as Extract<ThreadEvent, { event: "step.start" }>),
      title,
    });
    const v = view("live");
    v.progress.handle(titled(started, "Review the release"));
    v.progress.handle(titled(childStarted(CHILD_A), "src/a.ts"));
    v.progress.handle(titled(childStarted(CHILD_B), `src/${"deep/".repeat(10)}b.ts`));
    const screen = v.writes.at(-1)!;
    expect(screen).toContain("“Review the release” #2 greeter");
    expect(screen).toContain("“src/a.ts” #1 greeter");
    // A long title is cut, so the step's figures stay on the line.
    expect(screen).toContain("“src/deep/deep/deep/deep/deep/de…” #1 greeter");
    v.progress.handle({
      event: "fanout.child",
      thread: THREAD,
      child: CHILD_A,
      index: 0,
      status: "waiting",
      reason: "asks a question",
      ts: at(T0),
    });
    expect(v.all()).toContain("child “src/a.ts” (item 0) waiting: asks a question");

    const lines = view("lines");
    lines.progress.handle(titled(started, "Review the release"));
    lines.progress.handle(titled(childStarted(CHILD_A), "src/a.ts"));
    lines.progress.handle({ ...finished(null), thread: CHILD_A });
    expect(lines.all()).toContain(`started on thread ${THREAD} “Review the release”`);
    expect(lines.all()).toContain(" · thread “src/a.ts”");
  });

  it("off a terminal, a child's step names its thread when it ends; the exec's own does not", () => {
    const v = view("lines");
    v.progress.handle(started);
    v.progress.handle(finished(null));
    v.progress.handle(childStarted(CHILD_A));
    v.progress.handle({ ...finished(null), thread: CHILD_A });
    v.progress.handle(childStarted(CHILD_B));
    v.progress.handle({ ...failed, thread: CHILD_B });
    const lines = v.all().split("\n");
    expect(lines.find((l) => l.includes("✓") && !l.includes(CHILD_A.slice(0, 10)))).toBeDefined();
    expect(lines.filter((l) => l.includes("✓")).map((l) => l.split(" · thread ")[1])).toEqual([
      undefined,
      CHILD_A.slice(0, 10),
    ]);
    expect(lines.find((l) => l.includes("✗"))).toContain(` · thread ${CHILD_B.slice(0, 10)}`);
  });

  it("names the children of the thread it is given, though a child's event comes first", () => {
    // `thread watch` of a parent whose child's step is the one under way.
    const v = view("lines", { thread: THREAD });
    v.progress.handle(childStarted(CHILD_A));
    v.progress.handle({ ...finished(null), thread: CHILD_A });
    v.progress.handle(started);
    v.progress.handle(finished(null));
    const ends = v
      .all()
      .split("\n")
      .filter((l) => l.includes("✓"));
    expect(ends.map((l) => l.split(" · thread ")[1])).toEqual([CHILD_A.slice(0, 10), undefined]);
  });

  it("says nothing of a fan-out in quiet mode", () => {
    const v = view("quiet");
    v.progress.handle({
      event: "fanout.joined",
      thread: THREAD,
      role: "collect",
      completed: 1,
      failed: 0,
      ts: at(T0),
    });
    expect(v.all()).toBe("");
  });
});
