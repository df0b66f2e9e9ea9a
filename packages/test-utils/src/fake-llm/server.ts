import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicMessages } from "./anthropic.js";
import { gemini } from "./gemini.js";
import { type Obj, obj, sendApiError, sendJson, sleep } from "./json.js";
import { openaiChat } from "./openai-chat.js";
import { openaiResponses } from "./openai-responses.js";
import { DEFAULT_REPLY_TEXT, type FakeLlmScript, loadScript, type Reply } from "./script.js";

/** One request the fake received, with what it answered. */
export interface FakeLlmRequest {
  n: number;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  served: Obj;
}

export interface FakeLlm {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `<url>/v1`, the base URL OpenAI-compatible clients expect. */
  baseUrl: string;
  port: number;
  /** Every request so far, oldest first. */
  requests(): FakeLlmRequest[];
  /** Replace the script (an object, or a file path re-read on every request). */
  setScript(script: FakeLlmScript | string): void;
  /** Resolves once a request waits at the scripted `gate` (at once if one did already). */
  held(gate: string): Promise<void>;
  /** Let the replies held at `gate` go, and those that reach it later. */
  open(gate: string): void;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  script?: FakeLlmScript | string;
  /** The answer when the script has no steps. */
  defaultText?: string;
  /** Also append every request as a JSON line to this file. */
  logFile?: string;
}

const MODEL_NAMES = [
  "fake-model",
  "gpt-5",
  "claude-sonnet-4-5",
  "gemini-2.5-pro",
  "gemini-2.5-flash",
];

/**
 * A scripted model server on 127.0.0.1 (a free port) in this process. It speaks Anthropic
 * Messages, OpenAI Chat Completions and Responses, and Gemini, streaming and not; see the
 * package README for the script format.
 */
export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  let script = options.script;
  const defaultText = options.defaultText ?? DEFAULT_REPLY_TEXT;
  const log: FakeLlmRequest[] = [];
  let count = 0;
  const failures: FailureCount = { answered: 0 };
  const gates = new Gates();
  const hold = (reply: Reply): Promise<void> => gates.pass(reply);

  const server = createServer((req, res) => {
    const buffers: Buffer[] = [];
    req.on("data", (data: Buffer) => buffers.push(data));
    req.on("end", async () => {
      const raw = Buffer.concat(buffers).toString("utf8");
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        // Kept as the raw text.
      }
      // Logged before answering, so a client that reads `requests()` after its reply sees it.
      const entry: FakeLlmRequest = {
        n: ++count,
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        served: {},
      };
      log.push(entry);
      try {
        const current = loadScript(script, defaultText);
        const served = await answer(req, res, raw, current, { defaultText, failures, hold });
        Object.assign(entry.served, served);
      } catch (error) {
        entry.served.reply = "error";
        entry.served.error = String(error instanceof Error ? error.stack : error);
        if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
        else res.end();
      }
      if (options.logFile) {
        appendFileSync(
          options.logFile,
          `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`,
        );
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    requests: () => [...log],
    setScript: (next) => {
      script = next;
      failures.answered = 0;
    },
    held: (gate) => gates.held(gate),
    open: (gate) => gates.open(gate),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The scripted gates replies wait at until the test opens them. */
class Gates {
  readonly #opened = new Set<string>();
  readonly #waiting = new Map<string, (() => void)[]>();
  readonly #heldAt = new Set<string>();
  readonly #watchers = new Map<string, (() => void)[]>();

  /** Wait out the reply's delay and its gate. */
  async pass(reply: Reply): Promise<void> {
    if (reply.delayMs) await sleep(reply.delayMs);
    const gate = reply.gate;
    if (gate === undefined || this.#opened.has(gate)) return;
    const opened = new Promise<void>((resolve) => {
      this.#waiting.set(gate, [...(this.#waiting.get(gate) ?? []), resolve]);
    });
    this.#heldAt.add(gate);
    for (const told of this.#watchers.get(gate) ?? []) told();
    this.#watchers.delete(gate);
    await opened;
  }

  held(gate: string): Promise<void> {
    if (this.#heldAt.has(gate)) return Promise.resolve();
    return new Promise((resolve) => {
      this.#watchers.set(gate, [...(this.#watchers.get(gate) ?? []), resolve]);
    });
  }

  open(gate: string): void {
    this.#opened.add(gate);
    for (const release of this.#waiting.get(gate) ?? []) release();
    this.#waiting.delete(gate);
  }
}

/** Model requests answered by `fail_first` since the script was set. */
interface FailureCount {
  answered: number;
}

type Script = ReturnType<typeof loadScript>;

/** Route one request to the API its path names and answer it; returns what was served. */
async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  raw: string,
  current: Script,
  how: { defaultText: string; failures: FailureCount; hold: (reply: Reply) => Promise<void> },
): Promise<Obj> {
  const { defaultText, failures, hold } = how;
  let body: Obj;
  try {
    body = raw ? obj(JSON.parse(raw)) : {};
  } catch {
    body = { _unparsed: raw.slice(0, 2000) };
  }
  const url = new URL(req.url ?? "/", "http://fake");
  const path = url.pathname.replace(/\/+$/, "");
  const failing = (api: "anthropic" | "openai" | "gemini") =>
    scriptedFailure(current, failures, res, api, body);
  if (req.method === "POST" && /\/messages\/count_tokens$/.test(path)) {
    sendJson(res, 200, { input_tokens: 10 });
    return { reply: "count_tokens" };
  }
  if (req.method === "POST" && /\/messages$/.test(path))
    return failing("anthropic") ?? anthropicMessages(res, body, raw, current, defaultText, hold);
  if (req.method === "POST" && /\/chat\/completions$/.test(path))
    return failing("openai") ?? openaiChat(res, body, raw, current, defaultText, hold);
  if (req.method === "POST" && /\/responses$/.test(path))
    return failing("openai") ?? openaiResponses(res, body, raw, current, defaultText, hold);
  const gem = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(path);
  if (req.method === "POST" && gem && gem[2] !== "countTokens") {
    const failure = failing("gemini");
    if (failure) return failure;
  }
  if (req.method === "POST" && gem) {
    const request = {
      body,
      raw,
      model: gem[1]!,
      method: gem[2]!,
      sse: url.searchParams.get("alt") === "sse",
    };
    return gemini(res, request, current, defaultText, hold);
  }
  if (req.method === "GET" && /(^|\/)models$/.test(path)) {
    sendModelList(res, path);
    return { reply: "models" };
  }
  sendJson(res, 404, {
    error: { type: "not_found", message: `fake-llm: no route for ${req.method} ${path}` },
  });
  return { reply: "404" };
}

/** The `fail_first` error for this model request, counting it; null once they are used up. */
function scriptedFailure(
  current: Script,
  failures: FailureCount,
  res: ServerResponse,
  api: "anthropic" | "openai" | "gemini",
  body: Obj,
): Obj | null {
  const rule = current.fail_first;
  if (!rule || (rule.count !== undefined && failures.answered >= rule.count)) return null;
  if (rule.with_tools && !(Array.isArray(body.tools) && body.tools.length > 0)) return null;
  failures.answered++;
  const status = rule.status ?? 429;
  if (rule.body !== undefined) sendJson(res, status, rule.body, rule.headers ?? {});
  else {
    sendApiError(res, api, {
      status,
      message: rule.message ?? `fake-llm scripted failure ${failures.answered}`,
      headers: rule.headers ?? {},
    });
  }
  return { reply: "error", status, failure: failures.answered };
}

/** The served models, as Gemini (`v1beta`) or OpenAI lists them. */
function sendModelList(res: ServerResponse, path: string): void {
  if (path.includes("v1beta")) {
    sendJson(res, 200, {
      models: MODEL_NAMES.map((name) => ({
        name: `models/${name}`,
        supportedGenerationMethods: ["generateContent"],
      })),
    });
  } else {
    sendJson(res, 200, {
      object: "list",
      data: MODEL_NAMES.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
      models: [],
    });
  }
}
