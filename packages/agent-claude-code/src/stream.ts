import {
  addPartialUsage,
  anthropicUsage,
  cleanUsage,
  type InvalidJsonLine,
  type ToolCallRecord,
  type TurnRecord,
} from "@united-workforce/agent-kit";
import { isPlainObject, type Usage } from "@united-workforce/protocol";

/** A tool call Claude Code's permission check refused (`permission_denials` in the result). */
export interface PermissionDenial {
  tool: string;
  input: unknown;
}

/** What one `claude -p --output-format stream-json` run said, read from its stdout. */
export interface ClaudeRun {
  sessionId: string | null;
  model: string | null;
  claudeVersion: string | null;
  turns: TurnRecord[];
  /** The final `result` event; null when the CLI ended without one (crashed, killed). */
  result: {
    isError: boolean;
    text: string;
    subtype: string | null;
    apiErrorStatus: number | null;
    stopReason: string | null;
  } | null;
  usage: Partial<Usage>;
  denials: PermissionDenial[];
  /** stdout lines that were not JSON objects. */
  invalidLines: number;
}

/** Tool output kept per call in the detail; the rest is in the CLI's own session file. */
const TOOL_OUTPUT_CHARS = 2000;

/**
 * Reads the stream event by event. Claude Code prints one `assistant` event per content block,
 * all with the model message's id: blocks with the same id make one turn. Tool results come
 * back in `user` events and are attached to the call they answer.
 */
export class ClaudeStreamReader {
  private readonly run: ClaudeRun = {
    sessionId: null,
    model: null,
    claudeVersion: null,
    turns: [],
    result: null,
    usage: {},
    denials: [],
    invalidLines: 0,
  };
  private currentMessageId: string | null = null;
  private results = 0;
  private readonly calls = new Map<string, ToolCallRecord>();

  /** `onToolCall` sees each tool call as it happens (progress lines). */
  constructor(private readonly onToolCall: (call: ToolCallRecord) => void = () => {}) {}

  /** The model turns read so far. */
  get turnsSoFar(): number {
    return this.run.turns.length;
  }

  event(value: Record<string, unknown>): void {
    const sessionId = str(value.session_id);
    if (sessionId) this.run.sessionId = sessionId;
    switch (value.type) {
      case "system":
        if (value.subtype === "init") {
          this.run.model = str(value.model) ?? this.run.model;
          this.run.claudeVersion = str(value.claude_code_version) ?? null;
        }
        return;
      case "assistant":
        this.assistant(obj(value.message));
        return;
      case "user":
        this.toolResults(obj(value.message));
        return;
      case "result":
        this.result(value);
        return;
    }
  }

  invalid(_line: InvalidJsonLine): void {
    this.run.invalidLines++;
  }

  finish(): ClaudeRun {
    return this.run;
  }

  private assistant(message: Record<string, unknown>): void {
    const id = str(message.id) ?? null;
    // "<synthetic>" messages are the CLI's own (an API error shown as text): not a model turn.
    if (message.model === "<synthetic>") return;
    let turn = this.run.turns.at(-1);
    if (!turn || id === null || id !== this.currentMessageId) {
      turn = { text: "", toolCalls: [], usage: null };
      this.run.turns.push(turn);
      this.currentMessageId = id;
    }
    for (const block of arr(message.content).map(obj)) {
      if (block.type === "text" && typeof block.text === "string") {
        turn.text = turn.text ? `${turn.text}\n${block.text}` : block.text;
      } else if (block.type === "tool_use") {
        const call: ToolCallRecord = { name: str(block.name) ?? "?", input: block.input ?? null };
        turn.toolCalls.push(call);
        const callId = str(block.id);
        if (callId) this.calls.set(callId, call);
        this.onToolCall(call);
      }
    }
  }

  private toolResults(message: Record<string, unknown>): void {
    for (const block of arr(message.content).map(obj)) {
      if (block.type !== "tool_result") continue;
      const call = this.calls.get(str(block.tool_use_id) ?? "");
      if (!call) continue;
      call.output = resultText(block.content).slice(0, TOOL_OUTPUT_CHARS);
      if (block.is_error === true) call.isError = true;
    }
  }

  private result(value: Record<string, unknown>): void {
    this.run.result = {
      isError: value.is_error === true,
      text: str(value.result) ?? "",
      subtype: str(value.subtype) ?? null,
      apiErrorStatus: typeof value.api_error_status === "number" ? value.api_error_status : null,
      stopReason: str(value.stop_reason) ?? null,
    };
    // A second result answers a message claude read after its first (a steer): its tokens and
    // turns add up, its cost is the session's so far.
    const earlier = this.results++ === 0 ? {} : this.run.usage;
    this.run.usage = {
      ...addPartialUsage(
        earlier,
        anthropicUsage(value.usage),
        cleanUsage({ turns: value.num_turns }),
      ),
      ...cleanUsage({ costUsd: value.total_cost_usd }),
    };
    this.run.denials = arr(value.permission_denials)
      .map(obj)
      .map((d) => ({ tool: str(d.tool_name) ?? "?", input: d.tool_input ?? null }));
  }
}

/** A tool result's content: a string, or blocks of which the text ones are kept. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  return arr(content)
    .map(obj)
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

function obj(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
