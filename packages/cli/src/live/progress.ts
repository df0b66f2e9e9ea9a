import type { ThreadEvent, Usage } from "@united-workforce/protocol";
import { sanitizeTerminalText } from "@united-workforce/util";
import { groupDigits } from "../output/digits.js";
import type { ProgressMode } from "./terminal.js";
import { textWidth, truncate } from "./text-width.js";

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
const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const STYLE = {
  green: ["\u001b[32m", "\u001b[39m"],
  red: ["\u001b[31m", "\u001b[39m"],
  yellow: ["\u001b[33m", "\u001b[39m"],
  cyan: ["\u001b[36m", "\u001b[39m"],
  dim: ["\u001b[2m", "\u001b[22m"],
  bold: ["\u001b[1m", "\u001b[22m"],
} as const;
type Style = keyof typeof STYLE;
type Segment = readonly [text: string, style?: Style];

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

  constructor(private readonly options: ProgressOptions) {
    this.now = options.now ?? Date.now;
    this.ownThread = options.thread ?? null;
  }

  handle(event: ThreadEvent): void {
    const permanent: string[] = [];
    this.ownThread ??= event.thread;
    const atMs = Date.parse(event.ts);
    switch (event.event) {
      case "step.start": {
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
        if (this.options.mode === "lines") {
          permanent.push(
            this.stamp(
              atMs,
              `▶ #${event.stepNumber} ${event.role} (${event.agent}) started on thread ${event.thread}`,
            ),
          );
        }
        break;
      }
      case "adapter.output": {
        const line = sanitizeTerminalText(event.line).replace(/\s+/g, " ").trim();
        const step = this.running.get(event.thread);
        if (step && line !== "") step.lastLine = line;
        if (this.options.mode === "lines" && line !== "") {
          if (step) step.printedOutput = true;
          permanent.push(this.stamp(atMs, `  ${event.role} │ ${line}`));
        }
        break;
      }
      case "step.done": {
        const step = this.running.get(event.thread);
        this.running.delete(event.thread);
        if (this.options.mode === "quiet") break;
        permanent.push(this.finalLine(event, atMs, step));
        break;
      }
      case "step.failed": {
        const step = this.running.get(event.thread);
        this.running.delete(event.thread);
        this.lastFailure = { thread: event.thread, role: event.role };
        permanent.push(...this.failureLines(event, atMs, step));
        break;
      }
      case "step.retry": {
        // The step runs again: it stays the running step, and the wait is said once.
        if (this.options.mode === "quiet") break;
        const why = event.reason === "" ? "failed transiently" : event.reason;
        const line = `↻ ${event.role}: ${why}; retry ${event.retry} of ${event.maxRetries} in ${formatDuration(event.delayMs)}`;
        permanent.push(this.options.mode === "lines" ? this.stamp(atMs, line) : line);
        break;
      }
      case "thread.suspended": {
        // A question, like completion, is the result's to say. A failure found after a good
        // step (its edge cannot be routed) has had no ✗ line yet.
        const reported =
          this.lastFailure?.thread === event.thread && this.lastFailure.role === event.role;
        this.lastFailure = null;
        if (event.kind === "failure" && !reported) {
          permanent.push(...this.failureLines(event, atMs, undefined));
        }
        break;
      }
      case "exec.wait": {
        if (this.options.mode === "quiet") break;
        if (!this.options.following) {
          permanent.push(
            `waiting until ${event.retryAfter} to retry role "${event.role}" (Ctrl-C stops waiting)`,
          );
          break;
        }
        const line = `⏸ ${event.role}: waiting until ${event.retryAfter} to retry`;
        permanent.push(this.options.mode === "lines" ? this.stamp(atMs, line) : line);
        break;
      }
      case "fanout.started": {
        if (this.options.mode === "quiet") break;
        const children =
          event.children === 1
            ? "1 child"
            : `${event.children} children, ${Math.min(event.concurrency, event.children)} at a time`;
        const line = `⇉ ${shortThread(event.thread)} fans out: ${children}, then ${event.role}`;
        permanent.push(this.options.mode === "lines" ? this.stamp(atMs, line) : line);
        break;
      }
      case "fanout.child": {
        // Each child's steps have their own lines; only one that did not complete is said.
        if (this.options.mode === "quiet" || event.status === "completed") break;
        // A failure's reason was on the child's own ✗ line; a wait's is new.
        const why = event.reason && event.status !== "failed" ? `: ${event.reason}` : "";
        const line = `  child ${shortThread(event.child)}… (item ${event.index}) ${event.status}${why}`;
        permanent.push(
          this.options.mode === "lines"
            ? this.stamp(atMs, line)
            : this.paint([[line, "yellow"]], Number.POSITIVE_INFINITY),
        );
        break;
      }
      case "fanout.joined": {
        if (this.options.mode === "quiet") break;
        const step = event.stepNumber === undefined ? "" : `#${event.stepNumber} `;
        const line = `⇇ ${step}${event.role} joined the children of ${shortThread(event.thread)}: ${event.completed} completed, ${event.failed} failed`;
        permanent.push(this.options.mode === "lines" ? this.stamp(atMs, line) : line);
        break;
      }
      default:
        // The thread's end is the result's to say; the other events show nothing here.
        break;
    }
    this.render(permanent);
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
    const permanent: string[] = [];
    if (this.options.mode !== "quiet") {
      for (const step of this.running.values()) {
        const elapsed = formatDuration(this.now() - step.startedAtMs);
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
      [`${shortThread(step.thread)} `, "dim"],
      [`#${step.stepNumber} `],
      [step.role, "bold"],
      [` (${step.agent}) `],
      [elapsed, "yellow"],
    ];
    if (step.lastLine !== "") segments.push(["  "], [step.lastLine, "dim"]);
    // One column spare: a line exactly as wide as the terminal wraps on some terminals.
    return this.paint(segments, Math.max(10, this.options.columns() - 1));
  }

  private finalLine(
    event: Extract<ThreadEvent, { event: "step.done" }>,
    atMs: number,
    step: Running | undefined,
  ): string {
    const number = step ? `#${step.stepNumber} ` : "";
    const figures = [formatDuration(event.durationMs), ...formatUsage(event.usage ?? null)].join(
      " · ",
    );
    if (this.options.mode === "lines") {
      return this.stamp(
        atMs,
        `✓ ${number}${event.role} → ${event.status}  ${figures} · ${event.step}${this.onThread(event.thread)}`,
      );
    }
    return this.paint(
      [
        ["✓ ", "green"],
        [`${shortThread(event.thread)} `, "dim"],
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
    const after = step ? ` after ${formatDuration(atMs - step.startedAtMs)}` : "";
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
        [`${shortThread(event.thread)} `, "dim"],
        [head.slice(2), "red"],
      ],
      Number.POSITIVE_INFINITY,
    );
    return [painted, ...details];
  }

  /** Lines mode: a step's end names its thread when it is not the exec's own (a child's). */
  private onThread(thread: string): string {
    return thread === this.ownThread ? "" : ` · thread ${shortThread(thread)}`;
  }

  private stamp(atMs: number, text: string): string {
    return `${clockTime(atMs)} ${text}`;
  }

  /** Segments fitted to `width` columns, coloured when colour is on. */
  private paint(segments: readonly Segment[], width: number): string {
    let left = width;
    let out = "";
    for (const [text, style] of segments) {
      if (left <= 0) break;
      const piece = truncate(text, left);
      left -= textWidth(piece);
      out += this.options.color && style ? `${STYLE[style][0]}${piece}${STYLE[style][1]}` : piece;
    }
    return out;
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

/** ULIDs start with their time, so the first ten characters tell threads of one exec apart. */
function shortThread(thread: string): string {
  return thread.slice(0, 10);
}

function indent(text: string): string[] {
  return sanitizeTerminalText(text)
    .trimEnd()
    .split("\n")
    .map((line) => `    ${line}`);
}

/** `12s`, `3m05s`, `1h02m`: a ticking clock, whole seconds. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}

/** `195 ms`, `4.2 s`, then as `formatElapsed`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return formatElapsed(ms);
}

/** Tokens and cost as a person reads them; what the agent did not report says unknown. */
export function formatUsage(usage: Usage | null): string[] {
  const input = usage?.inputTokens ?? null;
  const output = usage?.outputTokens ?? null;
  const tokens =
    input === null && output === null
      ? "tokens unknown"
      : `${count(input)} in / ${count(output)} out tokens`;
  const cost = usage?.costUsd ?? null;
  return [tokens, cost === null ? "cost unknown" : formatCost(cost)];
}

function count(value: number | null): string {
  return value === null ? "?" : groupDigits(value);
}

function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** Local wall-clock time `HH:MM:SS` for lines mode, as CI log viewers show their own. */
function clockTime(ms: number): string {
  const at = new Date(ms);
  return [at.getHours(), at.getMinutes(), at.getSeconds()]
    .map((n) => String(n).padStart(2, "0"))
    .join(":");
}
