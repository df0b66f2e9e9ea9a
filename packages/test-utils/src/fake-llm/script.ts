import { readFileSync } from "node:fs";

/** One scripted reply. See the README of this package for the format. */
export interface FakeStep {
  /** A final assistant answer (or a preamble before a tool call). */
  text?: string;
  /** A tool call: the first tool name the request offers is used; its value is the arguments. */
  tool?: Record<string, unknown>;
  /** An HTTP error in the API's own error shape. */
  error?: { status?: number; message?: string; headers?: Record<string, string> };
  /** Wait this long before answering (timeout tests). */
  delay_ms?: number;
  /**
   * Hold the reply until the test opens this gate (`FakeLlm.open`): a test acts while the agent
   * waits for its model (`FakeLlm.held` says when a request waits there), without a sleep.
   */
  gate?: string;
}

/**
 * `steps` is the default conversation; a request containing `[[scenario:NAME]]` uses
 * `scenarios[NAME]`. `fail_first` answers the first `count` model requests (every one without a
 * count) with an HTTP error before the script is followed: a rate limit that passes, or one
 * that never does. The server counts them; `setScript` starts the count again.
 */
export interface FakeLlmScript {
  steps?: FakeStep[];
  scenarios?: Record<string, FakeStep[]>;
  fail_first?: FakeFailure;
}

/** HTTP errors answered before the script (e.g. 429 with `retry-after`, 529, 500). */
export interface FakeFailure {
  /** How many model requests fail; without it, all of them. */
  count?: number;
  /**
   * Fail (and count) only requests that offer tools: an agent's own turns, not the side
   * requests some CLIs make beside them (a title, a quota check), whose failure they ignore.
   */
  with_tools?: boolean;
  status?: number;
  message?: string;
  headers?: Record<string, string>;
  /** A JSON body answered instead of the API's own error shape (e.g. a usage-limit error). */
  body?: unknown;
}

export const DEFAULT_REPLY_TEXT =
  "---\n$status: done\nsummary: hello\n---\nbody from the fake model\n";

export type Reply =
  | ({ kind: "text"; text: string; fallback?: boolean } & Pause)
  | ({ kind: "tool"; name: string; args: unknown; text: string } & Pause)
  | ({
      kind: "error";
      status: number;
      message: string;
      headers: Record<string, string>;
    } & Pause);

/** What a reply waits for before it is sent. */
export interface Pause {
  delayMs: number;
  gate?: string;
}

/** What the request log says a model reply served: its scenario, turn and kind. */
export function servedReply(
  scenario: string,
  turn: number,
  reply: Exclude<Reply, { kind: "error" }>,
): Record<string, unknown> {
  return {
    scenario,
    turn,
    reply: reply.kind,
    tool: reply.kind === "tool" ? reply.name : undefined,
    fallback: reply.kind === "text" ? reply.fallback : undefined,
  };
}

/** A script object, or a file path re-read on every request (a test may rewrite it between runs). */
export function loadScript(
  source: FakeLlmScript | string | undefined,
  defaultText: string,
): FakeLlmScript {
  if (typeof source === "string") return JSON.parse(readFileSync(source, "utf8")) as FakeLlmScript;
  return source ?? { steps: [{ text: defaultText }] };
}

export function chooseSteps(
  script: FakeLlmScript,
  rawBody: string,
  defaultText: string,
): { name: string; steps: FakeStep[] } {
  const match = /\[\[scenario:([A-Za-z0-9_.-]+)\]\]/.exec(rawBody);
  const scenario = match ? script.scenarios?.[match[1]!] : undefined;
  if (match && scenario) return { name: match[1]!, steps: scenario };
  const steps = script.steps && script.steps.length > 0 ? script.steps : [{ text: defaultText }];
  return { name: "default", steps };
}

/**
 * The reply for the request's turn (the number of assistant turns already in its history): the
 * server keeps no state, so side requests do not move the sequence. Past the end: the last step.
 */
export function pickReply(
  steps: FakeStep[],
  turn: number,
  offeredTools: string[],
  defaultText: string,
): Reply {
  const step = steps[Math.min(turn, steps.length - 1)]!;
  const pause: Pause = { delayMs: step.delay_ms ?? 0, ...(step.gate ? { gate: step.gate } : {}) };
  if (step.error) {
    return {
      kind: "error",
      status: step.error.status ?? 500,
      message: step.error.message ?? "fake-llm scripted error",
      headers: step.error.headers ?? {},
      ...pause,
    };
  }
  if (step.tool) {
    for (const [name, args] of Object.entries(step.tool)) {
      if (offeredTools.includes(name))
        return { kind: "tool", name, args, text: step.text ?? "", ...pause };
    }
    return { kind: "text", text: finalText(steps, defaultText), fallback: true, ...pause };
  }
  return { kind: "text", text: step.text ?? defaultText, ...pause };
}

function finalText(steps: FakeStep[], defaultText: string): string {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    if (!step.tool && !step.error) return step.text ?? defaultText;
  }
  return defaultText;
}
