import { isPlainObject, type Usage } from "@united-workforce/protocol";
import type { ToolCallRecord, TurnRecord } from "../session/sessions.js";

/** A tool's output is kept up to this many characters in a turn record. */
export const TOOL_OUTPUT_CHARS = 2_000;

/** One `session/update` payload (`params.update`). */
export type SessionUpdate = Record<string, unknown> & { sessionUpdate?: unknown };

/** A `notice` update: something the agent tells the user beside its answer (a warning). */
export interface AgentNotice {
  severity: string;
  title: string;
  description?: string;
}

/** A tool call as the progress line shows it. */
export interface ToolCallEvent {
  id: string;
  title: string;
  kind: string | null;
  status: string | null;
}

/** What an update brought that a progress line shows. */
export type TurnEvent =
  | { type: "tool"; call: ToolCallEvent }
  | { type: "notice"; notice: AgentNotice };

/**
 * What one `session/prompt` produced, built from the `session/update` notifications that arrive
 * while it runs: the agent's text split into model turns (a turn ends where tool calls follow
 * text), the tool calls with their results, and the session cost the agent reports.
 */
export class PromptTurn {
  readonly turns: TurnRecord[] = [];
  /** The notices the agent sent while the prompt ran, in order. */
  readonly notices: AgentNotice[] = [];
  private readonly callsById = new Map<string, ToolCallRecord & { status?: string }>();
  private current: TurnRecord | null = null;
  /** The session's cumulative cost (USD) before and after this prompt, when reported. */
  private costBefore: number | null;
  private costAfter: number | null = null;

  constructor(costBefore: number | null = null) {
    this.costBefore = costBefore;
  }

  /**
   * Record one update; returns the tool call it started or changed, or the notice it brought,
   * for a progress line.
   */
  add(update: SessionUpdate): TurnEvent | null {
    switch (update.sessionUpdate) {
      case "agent_message_chunk": {
        const text = textOf(update.content);
        if (text === "") return null;
        if (!this.current || this.current.toolCalls.length > 0) this.startTurn();
        this.current!.text += text;
        return null;
      }
      case "tool_call":
      case "tool_call_update": {
        const call = this.toolCall(update, update.sessionUpdate === "tool_call");
        return call && { type: "tool", call };
      }
      case "usage_update": {
        const cost = usdCost(update.cost);
        if (cost !== null) this.costAfter = cost;
        return null;
      }
      case "notice": {
        const notice: AgentNotice = {
          severity: stringOr(update.severity, "info"),
          title: stringOr(update.title, "notice"),
          ...(typeof update.description === "string" && update.description !== ""
            ? { description: update.description }
            : {}),
        };
        this.notices.push(notice);
        return { type: "notice", notice };
      }
      default:
        return null;
    }
  }

  /**
   * The answer: the text of the last turn that said anything. Text before a tool call is the
   * agent narrating its work ("I'll write the file"); the deliverable is what it says last.
   */
  get answer(): string {
    for (let i = this.turns.length - 1; i >= 0; i--) {
      if (this.turns[i]!.text.trim() !== "") return this.turns[i]!.text;
    }
    return "";
  }

  /** This prompt's cost: the growth of the session's cumulative cost, or null when unknown. */
  get costUsd(): number | null {
    if (this.costAfter === null) return null;
    return Math.max(0, this.costAfter - (this.costBefore ?? 0));
  }

  /** The session's cumulative cost after this prompt (the next prompt's baseline). */
  get sessionCost(): number | null {
    return this.costAfter ?? this.costBefore;
  }

  private startTurn(): void {
    this.current = { text: "", toolCalls: [], usage: null };
    this.turns.push(this.current);
  }

  private toolCall(update: SessionUpdate, isNew: boolean): ToolCallEvent | null {
    const id = typeof update.toolCallId === "string" ? update.toolCallId : "";
    let call = this.callsById.get(id);
    if (!call) {
      if (!isNew && id === "") return null;
      if (!this.current) this.startTurn();
      call = { name: stringOr(update.title, stringOr(update.kind, "tool")), input: null };
      if (id !== "") this.callsById.set(id, call);
      this.current!.toolCalls.push(call);
    }
    if (typeof update.title === "string" && update.title !== "") call.name = update.title;
    if (update.rawInput !== undefined) call.input = update.rawInput;
    const output = outputOf(update);
    if (output !== null) call.output = output;
    const status = typeof update.status === "string" ? update.status : null;
    if (status) call.status = status;
    if (status === "failed") call.isError = true;
    return {
      id,
      title: call.name,
      kind: typeof update.kind === "string" ? update.kind : null,
      status,
    };
  }

  /** Usage for agent-kit: tokens from the prompt result, cost from `usage_update`. */
  usage(result: unknown): Partial<Usage> {
    const tokens = tokensOf(result);
    return {
      inputTokens: tokens.input,
      outputTokens: tokens.output,
      cacheReadTokens: tokens.cacheRead,
      cacheWriteTokens: tokens.cacheWrite,
      costUsd: this.costUsd,
      turns: this.turns.length > 0 ? this.turns.length : null,
    };
  }

  /** Turn records without the bookkeeping field `status`. */
  records(): TurnRecord[] {
    return this.turns.map((turn) => ({
      ...turn,
      toolCalls: turn.toolCalls.map(
        ({ status: _status, ...call }: ToolCallRecord & { status?: string }) => call,
      ),
    }));
  }
}

function textOf(content: unknown): string {
  if (!isPlainObject(content)) return "";
  return content.type === "text" && typeof content.text === "string" ? content.text : "";
}

/** A tool's result: its raw output, else the text of its content blocks. */
function outputOf(update: SessionUpdate): string | null {
  let text: string | null = null;
  if (update.rawOutput !== undefined && update.rawOutput !== null) {
    text =
      typeof update.rawOutput === "string" ? update.rawOutput : JSON.stringify(update.rawOutput);
  } else if (Array.isArray(update.content)) {
    const parts: string[] = [];
    for (const block of update.content) {
      if (!isPlainObject(block)) continue;
      if (block.type === "content") parts.push(textOf(block.content));
      else if (block.type === "diff" && typeof block.path === "string")
        parts.push(`diff ${block.path}`);
    }
    if (parts.some((part) => part !== "")) text = parts.join("\n");
  }
  if (text === null) return null;
  return text.length > TOOL_OUTPUT_CHARS ? `${text.slice(0, TOOL_OUTPUT_CHARS)}…` : text;
}

function usdCost(cost: unknown): number | null {
  if (!isPlainObject(cost) || typeof cost.amount !== "number") return null;
  if (typeof cost.currency === "string" && cost.currency.toUpperCase() !== "USD") return null;
  return cost.amount;
}

interface Tokens {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/**
 * Token counts from a `session/prompt` result: the draft `usage` field, else Gemini's
 * `_meta.quota.token_count`. Anything not reported stays null (unknown is not zero).
 */
export function tokensOf(result: unknown): Tokens {
  const none: Tokens = { input: null, output: null, cacheRead: null, cacheWrite: null };
  if (!isPlainObject(result)) return none;
  if (isPlainObject(result.usage)) {
    const u = result.usage;
    return {
      input: count(u.inputTokens),
      output: count(u.outputTokens),
      cacheRead: count(u.cachedReadTokens),
      cacheWrite: count(u.cachedWriteTokens),
    };
  }
  const meta = isPlainObject(result._meta) ? result._meta : {};
  const quota = isPlainObject(meta.quota) ? meta.quota : {};
  const tokens = isPlainObject(quota.token_count) ? quota.token_count : null;
  if (!tokens) return none;
  return { ...none, input: count(tokens.input_tokens), output: count(tokens.output_tokens) };
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value !== "" ? value : fallback;
}
