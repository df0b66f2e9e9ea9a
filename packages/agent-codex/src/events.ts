import { relative } from "node:path";
import type { ToolCallRecord, TurnRecord } from "@united-workforce/agent-kit";
import { isPlainObject } from "@united-workforce/protocol";
import { sanitizeTerminalText } from "@united-workforce/util";

/**
 * Reads `codex exec --json` events (codex 0.169): `thread.started` names the codex thread,
 * `item.completed` carries what the agent said and did, `turn.completed` the usage, and
 * `turn.failed` or a top-level `error` the reason a run failed.
 */

/** Codex's token totals as `turn.completed` reports them (for the whole codex thread). */
export interface CodexTokenTotals {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
}

export interface CodexRunReport {
  /** The codex thread (session) id, from `thread.started`. */
  threadId: string | null;
  /** The last `agent_message`: the answer. Null when the agent said nothing. */
  finalMessage: string | null;
  turns: TurnRecord[];
  /** Totals of the last `turn.completed`, or null when no turn completed. */
  totals: CodexTokenTotals | null;
  /** Why codex failed (`turn.failed`, `error` events), newest last; empty when it did not. */
  failures: string[];
  /** Non-fatal `error` items, e.g. "Model metadata for `x` not found". */
  warnings: string[];
  /** Stdout lines that were not JSON objects. */
  invalidLines: string[];
}

/** A tool's output longer than this is cut in the turn record (the agent saw all of it). */
export const MAX_TOOL_OUTPUT_CHARS = 16 * 1024;

export class CodexEventReader {
  private threadId: string | null = null;
  private finalMessage: string | null = null;
  private readonly turns: TurnRecord[] = [];
  private current: TurnRecord | null = null;
  private totals: CodexTokenTotals | null = null;
  private readonly failures: string[] = [];
  private readonly warnings: string[] = [];
  private readonly invalidLines: string[] = [];

  /**
   * @param cwd paths of changed files are shown relative to it
   * @param progress receives one short line per command started, file changed, or warning
   */
  constructor(
    private readonly cwd: string,
    private readonly progress: (line: string) => void = () => {},
  ) {}

  take(event: Record<string, unknown>): void {
    switch (event.type) {
      case "thread.started":
        if (typeof event.thread_id === "string") this.threadId = event.thread_id;
        return;
      case "item.started":
        this.started(record(event.item));
        return;
      case "item.completed":
        this.completed(record(event.item));
        return;
      case "turn.completed":
        this.totals = tokenTotals(event.usage);
        return;
      case "turn.failed":
        this.fail(errorText(record(event.error).message));
        return;
      case "error":
        this.fail(errorText(event.message));
        return;
      default:
        // turn.started, item.updated and event types a newer codex adds carry nothing we keep.
        return;
    }
  }

  /** A stdout line that is not a JSON object (codex prints none with --json; keep it anyway). */
  takeInvalid(line: string): void {
    this.invalidLines.push(line);
  }

  report(): CodexRunReport {
    this.closeTurn();
    return {
      threadId: this.threadId,
      finalMessage: this.finalMessage,
      turns: [...this.turns],
      totals: this.totals,
      failures: [...this.failures],
      warnings: [...this.warnings],
      invalidLines: [...this.invalidLines],
    };
  }

  private started(item: Record<string, unknown>): void {
    if (item.type === "command_execution" && typeof item.command === "string") {
      this.progress(`running: ${oneLine(item.command)}`);
    }
  }

  private completed(item: Record<string, unknown>): void {
    switch (item.type) {
      case "agent_message": {
        const text = typeof item.text === "string" ? item.text : "";
        // Text after tool results starts the model's next turn.
        if (this.current && this.current.toolCalls.length > 0) this.closeTurn();
        this.appendText(text);
        this.finalMessage = text;
        return;
      }
      case "reasoning": {
        // Reasoning opens a model turn: whatever came before belongs to the previous one.
        this.closeTurn();
        const text = typeof item.text === "string" ? item.text : "";
        if (text) this.appendText(`Reasoning: ${text}`);
        return;
      }
      case "error": {
        // Codex reports warnings this way (unknown model metadata); the run goes on.
        const message = typeof item.message === "string" ? item.message : "codex reported an error";
        this.warnings.push(message);
        this.progress(`codex warning: ${oneLine(message)}`);
        return;
      }
      default: {
        const call = toolCall(item, this.cwd);
        this.turn().toolCalls.push(call);
        if (item.type === "file_change")
          this.progress(`changed: ${describeChanges(item, this.cwd)}`);
        return;
      }
    }
  }

  private fail(message: string): void {
    // `error` and `turn.failed` usually repeat the same message.
    if (this.failures.at(-1) !== message) this.failures.push(message);
  }

  private turn(): TurnRecord {
    this.current ??= { text: "", toolCalls: [], usage: null };
    return this.current;
  }

  private appendText(text: string): void {
    const turn = this.turn();
    turn.text = turn.text ? `${turn.text}\n\n${text}` : text;
  }

  private closeTurn(): void {
    if (this.current) this.turns.push(this.current);
    this.current = null;
  }
}

/** One completed item that is not talk: a command, a file change, an MCP call, a search… */
function toolCall(item: Record<string, unknown>, cwd: string): ToolCallRecord {
  const failed = item.status === "failed";
  switch (item.type) {
    case "command_execution": {
      const exitCode = typeof item.exit_code === "number" ? item.exit_code : null;
      return {
        name: "command",
        input: { command: item.command ?? null },
        output: cut(typeof item.aggregated_output === "string" ? item.aggregated_output : ""),
        isError: failed || (exitCode !== null && exitCode !== 0),
      };
    }
    case "file_change":
      return {
        name: "file_change",
        input: {
          changes: changesOf(item).map((c) => ({ path: shortPath(c.path, cwd), kind: c.kind })),
        },
        output: String(item.status ?? ""),
        isError: failed,
      };
    case "mcp_tool_call": {
      const output = item.error ?? item.result;
      return {
        name: `mcp:${String(item.server ?? "?")}/${String(item.tool ?? "?")}`,
        input: item.arguments ?? null,
        ...(output === undefined || output === null ? {} : { output: cut(stringOf(output)) }),
        isError: failed || (item.error !== undefined && item.error !== null),
      };
    }
    default: {
      // Searches, to-do lists and item types a newer codex adds: kept whole, named by type.
      const { id: _id, type, status: _status, ...input } = item;
      return { name: String(type ?? "unknown"), input, isError: failed };
    }
  }
}

function changesOf(item: Record<string, unknown>): { path: string; kind: string }[] {
  if (!Array.isArray(item.changes)) return [];
  return item.changes.map((change) => {
    const c = record(change);
    return { path: String(c.path ?? ""), kind: String(c.kind ?? "update") };
  });
}

function describeChanges(item: Record<string, unknown>, cwd: string): string {
  const changes = changesOf(item);
  const text = changes.map((c) => `${c.kind} ${shortPath(c.path, cwd)}`).join(", ");
  return item.status === "failed" ? `${text} (failed)` : text;
}

/** A path inside the step's directory relative to it; any other stays absolute. */
function shortPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !rel.startsWith("/") ? rel : path;
}

function tokenTotals(raw: unknown): CodexTokenTotals | null {
  const u = record(raw);
  const n = (value: unknown): number =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
  if (typeof u.input_tokens !== "number" && typeof u.output_tokens !== "number") return null;
  return {
    input_tokens: n(u.input_tokens),
    cached_input_tokens: n(u.cached_input_tokens),
    cache_write_input_tokens: n(u.cache_write_input_tokens),
    output_tokens: n(u.output_tokens),
  };
}

/**
 * Codex passes an API error's body on as its message (`{"error":{"message":"…"}}`): show the
 * message inside.
 */
export function errorText(raw: unknown): string {
  if (typeof raw !== "string" || raw.trim() === "") return "codex reported an error";
  try {
    const parsed = record(JSON.parse(raw));
    const inner = record(parsed.error).message ?? parsed.message;
    if (typeof inner === "string" && inner.trim() !== "") return inner;
  } catch {
    // Not JSON: the message itself.
  }
  return raw;
}

function cut(text: string): string {
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
  const rest = text.length - MAX_TOOL_OUTPUT_CHARS;
  return `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n… (${rest} more characters)`;
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function oneLine(text: string): string {
  const line = sanitizeTerminalText(text).replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}
