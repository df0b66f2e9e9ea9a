import type { ThreadEvent } from "@united-workforce/protocol";
import {
  costFact,
  durationText,
  type EventStream,
  sanitizeTerminalText,
  stepCost,
  tokensFact,
} from "@united-workforce/util";
import { cutToWidth } from "../output/table.js";
import { clockTime, formatElapsed, indent, shortThread } from "./format.js";
import { paint, type Segment } from "./paint.js";
import type { ProgressMode } from "./terminal.js";

export interface ProgressOptions {
  /**
   * The thread whose run this view shows: lines about any other (its fan-outs' children) name
   * theirs. Without it, the thread of the first event (an exec's own first step).
   */
  thread?: string;
  mode: ProgressMode;
  color: boolean;
  /** Where progress goes (stderr). Every write ends with a newline. */
  write(text: string): void;
  /** The terminal's width now (live mode); it is asked at each redraw. */
  columns(): number;
  now?(): number;
  /** Live mode: how often the elapsed time and the spinner move; 0 = only on events (tests). */
  tickMs?: number;
  /** Another process runs what this view shows (`thread watch`, `join`): Ctrl-C stops watching. */
  following?: boolean;
}

interface Running {
  thread: string;
  role: string;
  agent: string;
  stepNumber: number;
  startedAtMs: number;
  lastLine: string;
  /** Lines mode: the agent's output was printed as it came, so a failure need not repeat it. */
  printedOutput: boolean;
}

/** What the engine appends to a failed agent's reason: the end of its stderr. */
const TAIL_MARKER = "\n--- adapter stderr (tail) ---\n";
/** A title in a progress line is cut to this many cells, to leave room for the step. */
const LABEL_CELLS = 32;
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A thread event of one kind. */
type Event<N extends ThreadEvent["event"]> = Extract<ThreadEvent, { event: N }>;

/**
 * Renders progress events for a person. Live mode keeps one status line per running step at
 * the bottom (thread, step number, role, agent, elapsed time, the agent's last output line),
 * redrawn in place, and turns it into a final line when the step ends. Lines mode prints one
 * timestamped line per event and never moves the cursor. Quiet mode prints only failures.
 *
 * An agent's failure is printed here, once: its reason, and the end of its stderr unless that
 * was printed as it came. The thread's end (completed, a question) is the result's to say.
 */
export class ProgressView {
  private readonly running = new Map<string, Running>();
  /** Live lines now on screen, below everything printed for good. */
  private drawn = 0;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The last failure printed, so the suspension that follows it is not reported again. */
  private lastFailure: { thread: string; role: string } | null = null;
  /** The thread this view shows (`options.thread`, else the first event's): others are named. */
  private ownThread: string | null;
  private readonly now: () => number;
  /** Each thread's title, as its events said it: lines name threads by it. */
  private readonly titles = new Map<string, string>();

  /** Ends the subscription `listen` made: a long-lived process (`uwf mcp`) runs many views. */
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? Date.now;
    this.ownThread = options.thread ?? null;
  }

  /** Show the thread events of `stream` until `stop`. */
  listen(stream: EventStream): void {
    this.unsubscribe = stream.subscribe((event) => {
      if ("thread" in event) this.handle(event);
    });
  }

  handle(event: ThreadEvent): void {
    this.ownThread ??= event.thread;
    if ((event.event === "step.start" || event.event === "thread.start") && event.title) {
      this.titles.set(event.thread, sanitizeTerminalText(event.title).replace(/\s+/g, " "));
    }
    this.render(this.linesFor(event, Date.parse(event.ts)));
  }

  /** What `event`, which happened at `atMs`, prints for good (the live lines are redrawn). */
  private linesFor(event: ThreadEvent, atMs: number): string[] {
    switch (event.event) {
      case "step.start":
        return this.stepStarted(event, atMs);
      case "adapter.output":
        return this.agentOutput(event, atMs);
      case "step.done":
        return this.stepDone(event, atMs);
      case "step.failed":
        return this.stepFailed(event, atMs);
      case "step.retry":
        return this.stepRetried(event, atMs);
      case "step.receipt-failed":
        return this.receiptFailed(event, atMs);
      case "thread.suspended":
        return this.suspended(event, atMs);
      case "exec.wait":
        return this.waiting(event, atMs);
      case "fanout.started":
        return this.fanoutStarted(event, atMs);
      case "fanout.child":
        return this.fanoutChild(event, atMs);
      case "fanout.joined":
        return this.fanoutJoined(event, atMs);
      default:
        // The thread's end is the result's to say; the other events show nothing here.
        return [];
    }
  }

  private stepStarted(event: Event<"step.start">, atMs: number): string[] {
    this.running.set(event.thread, {
      thread: event.thread,
      role: event.role,
      agent: event.agent,
      stepNumber: event.stepNumber,
      startedAtMs: atMs,
      lastLine: "",
      printedOutput: false,
    });
    this.lastFailure = null;
    if (this.options.mode !== "lines") return [];
    const title = this.titles.get(event.thread);
    const named = title === undefined ? "" : ` “${title}”`;
    const line = `▶ #${event.stepNumber} ${event.role} (${event.agent}) started on thread ${event.thread}${named}`;
    return [this.stamp(atMs, line)];
  }

  private agentOutput(event: Event<"adapter.output">, atMs: number): string[] {
    const line = sanitizeTerminalText(event.line).replace(/\s+/g, " ").trim();
    const step = this.running.get(event.thread);
    if (step && line !== "") step.lastLine = line;
    if (this.options.mode !== "lines" || line === "") return [];
    if (step) step.printedOutput = true;
    return [this.stamp(atMs, `  ${event.role} │ ${line}`)];
  }

  private stepDone(event: Event<"step.done">, atMs: number): string[] {
    const step = this.running.get(event.thread);
    this.running.delete(event.thread);
    if (this.options.mode === "quiet") return [];
    return [this.finalLine(event, atMs, step)];
  }

  private stepFailed(event: Event<"step.failed">, atMs: number): string[] {
    const step = this.running.get(event.thread);
    this.running.delete(event.thread);
    this.lastFailure = { thread: event.thread, role: event.role };
    return this.failureLines(event, atMs, step);
  }

  /** The step runs again: it stays the running step, and the wait is said once. */
  private stepRetried(event: Event<"step.retry">, atMs: number): string[] {
    if (this.options.mode === "quiet") return [];
    const why = event.reason === "" ? "failed transiently" : event.reason;
    const line = `↻ ${event.role}: ${why}; retry ${event.retry} of ${event.maxRetries} in ${durationText(event.delayMs)}`;
    return [this.stampInLines(atMs, line)];
  }

  /** The step goes on without its receipt: said once, since its step records nothing of git. */
  private receiptFailed(event: Event<"step.receipt-failed">, atMs: number): string[] {
    if (this.options.mode === "quiet") return [];
    const why = sanitizeTerminalText(event.reason).replace(/\s+/g, " ").trim();
    return [this.stampInLines(atMs, `⚠ ${event.role}: no receipt of this step (${why})`)];
  }

  /**
   * A question, like completion, is the result's to say. A failure found after a good step
   * (its edge cannot be routed) has had no ✗ line yet.
   */
  private suspended(event: Event<"thread.suspended">, atMs: number): string[] {
    const reported =
      this.lastFailure?.thread === event.thread && this.lastFailure.role === event.role;
    this.lastFailure = null;
    if (event.kind !== "failure" || reported) return [];
    return this.failureLines(event, atMs, undefined);
  }

  private waiting(event: Event<"exec.wait">, atMs: number): string[] {
    if (this.options.mode === "quiet") return [];
    if (!this.options.following) {
      return [
        `waiting until ${event.retryAfter} to retry role "${event.role}" (Ctrl-C stops waiting)`,
      ];
    }
    return [this.stampInLines(atMs, `⏸ ${event.role}: waiting until ${event.retryAfter} to retry`)];
  }

  private fanoutStarted(event: Event<"fanout.started">, atMs: number): string[] {
    if (this.options.mode === "quiet") return [];
    const children =
      event.children === 1
        ? "1 child"
        : `${event.children} children, ${Math.min(event.concurrency, event.children)} at a time`;
    const line = `⇉ ${this.label(event.thread)} fans out: ${children}, then ${event.role}`;
    return [this.stampInLines(atMs, line)];
  }

  /** Each child's steps have their own lines; only one that did not complete is said. */
  private fanoutChild(event: Event<"fanout.child">, atMs: number): string[] {
    if (this.options.mode === "quiet" || event.status === "completed") return [];
    // A failure's reason was on the child's own ✗ line; a wait's is new.
    const why = event.reason && event.status !== "failed" ? `: ${event.reason}` : "";
    const line = `  child ${this.label(event.child)} (item ${event.index}) ${event.status}${why}`;
    return [
      this.options.mode === "lines"
        ? this.stamp(atMs, line)
        : this.paint([[line, "yellow"]], Number.POSITIVE_INFINITY),
    ];
  }

  private fanoutJoined(event: Event<"fanout.joined">, atMs: number): string[] {
    if (this.options.mode === "quiet") return [];
    const step = event.stepNumber === undefined ? "" : `#${event.stepNumber} `;
    const line = `⇇ ${step}${event.role} joined the children of ${this.label(event.thread)}: ${event.completed} completed, ${event.failed} failed`;
    return [this.stampInLines(atMs, line)];
  }

  /** Redraw the live lines (the timer does this; tests call it with their own clock). */
  tick(): void {
    this.frame++;
    if (this.running.size > 0) this.render([]);
  }

  /**
   * Leave the terminal clean before the result is printed: a step still shown as running gets
   * a last line, saying it was interrupted (this process ran it), or that it goes on (a
   * follower stopped watching).
   */
  stop(how: "interrupted" | "left" = "interrupted"): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    const permanent: string[] = [];
    if (this.options.mode !== "quiet") {
      for (const step of this.running.values()) {
        const elapsed = durationText(this.now() - step.startedAtMs);
        const text =
          how === "interrupted"
            ? `■ #${step.stepNumber} ${step.role} interrupted after ${elapsed}`
            : `… #${step.stepNumber} ${step.role} still running (${elapsed} so far)`;
        permanent.push(
          this.options.mode === "lines"
            ? this.stamp(this.now(), text)
            : this.paint([[text, "yellow"]], Number.POSITIVE_INFINITY),
        );
      }
    }
    this.running.clear();
    this.render(permanent);
    this.stopTimer();
  }

  private render(permanent: string[]): void {
    if (this.options.mode !== "live") {
      if (permanent.length > 0) this.options.write(`${permanent.join("\n")}\n`);
      return;
    }
    const live = [...this.running.values()].map((step) => this.liveLine(step));
    if (permanent.length === 0 && live.length === 0 && this.drawn === 0) return;
    // Back to the first live line, clear to the end of the screen, then print what stays and
    // the live lines anew. Each live line ends with a newline, so the cursor sits below them.
    const erase = this.drawn > 0 ? `\u001b[${this.drawn}A\r\u001b[J` : "";
    const body = [...permanent, ...live];
    this.options.write(`${erase}${body.length > 0 ? `${body.join("\n")}\n` : ""}`);
    this.drawn = live.length;
    if (live.length > 0) this.startTimer();
    else this.stopTimer();
  }

  private liveLine(step: Running): string {
    const elapsed = formatElapsed(this.now() - step.startedAtMs);
    const segments: Segment[] = [
      [`${SPINNER[this.frame % SPINNER.length]} `, "cyan"],
      [`${this.label(step.thread)} `, "dim"],
      [`#${step.stepNumber} `],
      [step.role, "bold"],
      [` (${step.agent}) `],
      [elapsed, "yellow"],
    ];
    if (step.lastLine !== "") segments.push(["  "], [step.lastLine, "dim"]);
    // One column spare: a line exactly as wide as the terminal wraps on some terminals.
    return this.paint(segments, Math.max(10, this.options.columns() - 1));
  }

  private finalLine(event: Event<"step.done">, atMs: number, step: Running | undefined): string {
    const number = step ? `#${step.stepNumber} ` : "";
    const usage = event.usage ?? null;
    const figures = [
      durationText(event.durationMs),
      tokensFact(usage),
      costFact(stepCost(usage)),
    ].join(" · ");
    if (this.options.mode === "lines") {
      return this.stamp(
        atMs,
        `✓ ${number}${event.role} → ${event.status}  ${figures} · ${event.step}${this.onThread(event.thread)}`,
      );
    }
    return this.paint(
      [
        ["✓ ", "green"],
        [`${this.label(event.thread)} `, "dim"],
        [`${number}${event.role} → `],
        [event.status, "bold"],
        [`  ${figures}  `],
        [event.step, "dim"],
      ],
      Number.POSITIVE_INFINITY,
    );
  }

  private failureLines(
    event: { thread: string; role: string; reason: string },
    atMs: number,
    step: Running | undefined,
  ): string[] {
    const cut = event.reason.indexOf(TAIL_MARKER);
    const reason = cut === -1 ? event.reason : event.reason.slice(0, cut);
    const tail = cut === -1 ? "" : event.reason.slice(cut + TAIL_MARKER.length);
    const after = step ? ` after ${durationText(atMs - step.startedAtMs)}` : "";
    const number = step ? `#${step.stepNumber} ` : "";
    const head = `✗ ${number}${event.role} failed${after}: ${reason}`;
    // Lines mode printed the agent's output as it came; the tail would repeat it.
    const showTail = tail.trim() !== "" && !(this.options.mode === "lines" && step?.printedOutput);
    const details = showTail ? ["  agent's last output:", ...indent(tail)] : [];
    if (this.options.mode === "lines") {
      return [this.stamp(atMs, `${head}${this.onThread(event.thread)}`), ...details];
    }
    if (this.options.mode === "quiet") return [head, ...details];
    const painted = this.paint(
      [
        ["✗ ", "red"],
        [`${this.label(event.thread)} `, "dim"],
        [head.slice(2), "red"],
      ],
      Number.POSITIVE_INFINITY,
    );
    return [painted, ...details];
  }

  /** Lines mode: a step's end names its thread when it is not the exec's own (a child's). */
  private onThread(thread: string): string {
    return thread === this.ownThread ? "" : ` · thread ${this.label(thread)}`;
  }

  /**
   * How a line names a thread: its title, cut short, when its events gave one (a fan-out's
   * child: its item), else the start of its id, which tells the threads of one exec apart.
   */
  private label(thread: string): string {
    const title = this.titles.get(thread);
    return title === undefined ? shortThread(thread) : `“${cutToWidth(title, LABEL_CELLS)}”`;
  }

  private stamp(atMs: number, text: string): string {
    return `${clockTime(atMs)} ${text}`;
  }

  /** A line as is, with its time in lines mode. */
  private stampInLines(atMs: number, text: string): string {
    return this.options.mode === "lines" ? this.stamp(atMs, text) : text;
  }

  /** Segments fitted to `width` columns, coloured when colour is on. */
  private paint(segments: readonly Segment[], width: number): string {
    return paint(segments, width, this.options.color);
  }

  private startTimer(): void {
    const every = this.options.tickMs ?? 250;
    if (this.timer !== null || every <= 0) return;
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref?.();
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
