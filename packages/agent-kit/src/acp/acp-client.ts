import type { Readable, Writable } from "node:stream";
import { isPlainObject } from "@united-workforce/protocol";
import { ConfinedFs } from "./client-fs.js";
import { JsonRpcConnection, RPC_METHOD_NOT_FOUND, RpcClosedError, RpcError } from "./json-rpc.js";
import {
  choosePermission,
  type PermissionDecision,
  type PermissionOption,
  type PermissionPolicy,
} from "./permission.js";
import { PromptTurn, type SessionUpdate, type TurnEvent } from "./prompt-turn.js";

/** The ACP version this client speaks. */
export const ACP_PROTOCOL_VERSION = 1;

export interface AcpClientOptions {
  clientInfo: { name: string; version: string };
  permission: PermissionPolicy;
  /**
   * Advertise the `fs` capability and serve the agent's file reads and writes, confined to this
   * directory. Null: the agent uses its own file tools.
   */
  fsRoot?: string | null;
  /** Told about tool calls and permission decisions while a prompt runs (progress lines). */
  onEvent?: (event: AcpEvent) => void;
  /** After `session/cancel`, how long to wait for the prompt to end before giving up on it. */
  cancelGraceMs?: number;
  /** After `session/load`, the replayed history counts as over once the agent is quiet this long. */
  replayQuietMs?: number;
}

export type AcpEvent = TurnEvent | { type: "permission"; decision: PermissionDecision };

export interface AgentHello {
  protocolVersion: number;
  name: string | null;
  version: string | null;
  loadSession: boolean;
}

export interface SessionModes {
  currentModeId: string | null;
  availableModes: string[];
}

export interface AcpSession {
  sessionId: string;
  modes: SessionModes | null;
  /** The model the agent says it uses, when it says. */
  model: string | null;
}

export interface PromptOutcome {
  stopReason: string;
  turn: PromptTurn;
  /** The raw `session/prompt` result, for usage. */
  result: unknown;
}

/** The prompt was cancelled because the caller's signal aborted. */
export class PromptCancelledError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PromptCancelledError";
  }
}

const DEFAULT_CANCEL_GRACE_MS = 1_000;
const DEFAULT_REPLAY_QUIET_MS = 150;
const REPLAY_WAIT_LIMIT_MS = 3_000;

/**
 * An Agent Client Protocol client over one agent's stdio: `initialize`, `session/new` or
 * `session/load`, `session/set_mode`, `session/prompt` with its `session/update` stream, and
 * `session/cancel`. Agent requests are answered here: `session/request_permission` by the
 * policy, `fs/*` only when `fsRoot` is set, anything else with "method not found".
 */
export class AcpClient {
  readonly connection: JsonRpcConnection;
  /** Every permission decision made on this connection, oldest first. */
  readonly permissions: PermissionDecision[] = [];
  private readonly fs: ConfinedFs | null;
  private readonly active = new Map<string, PromptTurn>();
  private readonly sessionCost = new Map<string, number>();
  private readonly lastUpdateAt = new Map<string, number>();
  private readonly cancelling = new Set<string>();

  constructor(
    input: Readable,
    output: Writable,
    private readonly options: AcpClientOptions,
  ) {
    this.fs = options.fsRoot ? new ConfinedFs(options.fsRoot) : null;
    this.connection = new JsonRpcConnection(input, output, {
      onRequest: (method, params) => this.onRequest(method, params),
      onNotification: (method, params) => this.onNotification(method, params),
    });
  }

  async initialize(): Promise<AgentHello> {
    const clientCapabilities: Record<string, unknown> = {
      fs: { readTextFile: this.fs !== null, writeTextFile: this.fs !== null },
      terminal: false,
      // Warnings come as `notice` updates, not as text: codex-acp otherwise puts "Warning: Model
      // metadata for `x` not found…" before the answer, and the frontmatter is no longer first.
      session: { notices: {} },
    };
    const result = asObject(
      await this.connection.request("initialize", {
        protocolVersion: ACP_PROTOCOL_VERSION,
        clientCapabilities,
        clientInfo: this.options.clientInfo,
      }),
    );
    const version = result.protocolVersion;
    if (version !== ACP_PROTOCOL_VERSION) {
      throw new Error(
        `the agent speaks ACP protocol version ${JSON.stringify(version)}; this client speaks version ${ACP_PROTOCOL_VERSION}`,
      );
    }
    const info = asObject(result.agentInfo);
    const capabilities = asObject(result.agentCapabilities);
    return {
      protocolVersion: version,
      name: typeof info.name === "string" ? info.name : null,
      version: typeof info.version === "string" ? info.version : null,
      loadSession: capabilities.loadSession === true,
    };
  }

  async newSession(cwd: string): Promise<AcpSession> {
    const result = asObject(await this.connection.request("session/new", { cwd, mcpServers: [] }));
    if (typeof result.sessionId !== "string" || result.sessionId === "") {
      throw new Error("session/new answered without a sessionId");
    }
    return sessionOf(result.sessionId, result);
  }

  /**
   * Reopen an earlier session. The agent replays its history as `session/update`s, some of them
   * after its answer (Gemini does): this resolves once the replay has gone quiet, so no replayed
   * text is taken for the next prompt's answer.
   */
  async loadSession(sessionId: string, cwd: string): Promise<AcpSession> {
    const result = asObject(
      await this.connection.request("session/load", { sessionId, cwd, mcpServers: [] }),
    );
    await this.replayQuiet(sessionId);
    return sessionOf(sessionId, result);
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.connection.request("session/set_mode", { sessionId, modeId });
  }

  /**
   * One prompt turn. Only updates that arrive while it runs count towards its answer. When
   * `signal` aborts, the turn is cancelled (`session/cancel`, pending permission requests answered
   * `cancelled`) and this rejects with `PromptCancelledError` once the agent confirms, or after
   * the grace period if it does not.
   */
  async prompt(sessionId: string, text: string, signal?: AbortSignal): Promise<PromptOutcome> {
    if (this.active.has(sessionId))
      throw new Error(`session ${sessionId} already has a prompt running`);
    signal?.throwIfAborted();
    const turn = new PromptTurn(this.sessionCost.get(sessionId) ?? null);
    this.active.set(sessionId, turn);
    const request = this.connection.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    let onAbort: (() => void) | undefined;
    try {
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          this.cancelling.add(sessionId);
          this.connection.notify("session/cancel", { sessionId });
          const grace = setTimeout(
            () => reject(new PromptCancelledError("the agent did not confirm the cancel in time")),
            this.options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS,
          );
          request.then(
            () => {
              clearTimeout(grace);
              reject(new PromptCancelledError("the prompt was cancelled"));
            },
            (error: unknown) => {
              clearTimeout(grace);
              reject(
                error instanceof RpcClosedError
                  ? error
                  : new PromptCancelledError("the prompt was cancelled"),
              );
            },
          );
        };
        if (signal) signal.addEventListener("abort", onAbort, { once: true });
      });
      // Rejections of the losing promise are handled: `aborted` only settles after an abort.
      aborted.catch(() => {});
      const result = asObject(await Promise.race([request, aborted]));
      // The agent may answer before the abort is seen; a cancelled prompt has no answer to use.
      if (signal?.aborted) throw new PromptCancelledError("the prompt was cancelled");
      const stopReason = typeof result.stopReason === "string" ? result.stopReason : "unknown";
      return { stopReason, turn, result };
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      this.active.delete(sessionId);
      this.cancelling.delete(sessionId);
      const cost = turn.sessionCost;
      if (cost !== null) this.sessionCost.set(sessionId, cost);
    }
  }

  private onNotification(method: string, params: unknown): void {
    // Unknown notifications (`_auth/status_update`, `session_info_update`…) carry nothing we use.
    if (method !== "session/update") return;
    const p = asObject(params);
    const sessionId = typeof p.sessionId === "string" ? p.sessionId : "";
    const update = asObject(p.update) as SessionUpdate;
    this.lastUpdateAt.set(sessionId, Date.now());
    const turn = this.active.get(sessionId);
    if (!turn) {
      // Outside a prompt (a replay): only the cost matters, as the next prompt's baseline.
      if (update.sessionUpdate === "usage_update") {
        const cost = asObject(update.cost);
        if (typeof cost.amount === "number") this.sessionCost.set(sessionId, cost.amount);
      }
      return;
    }
    const event = turn.add(update);
    if (event) this.options.onEvent?.(event);
  }

  private onRequest(method: string, params: unknown): unknown {
    switch (method) {
      case "session/request_permission":
        return this.answerPermission(params);
      case "fs/read_text_file":
        if (this.fs) return this.fs.read(params);
        break;
      case "fs/write_text_file":
        if (this.fs) return this.fs.write(params);
        break;
    }
    throw new RpcError(RPC_METHOD_NOT_FOUND, `method not found: ${method}`);
  }

  private answerPermission(params: unknown): unknown {
    const p = asObject(params);
    const toolCall = asObject(p.toolCall);
    const options = (Array.isArray(p.options) ? p.options : []).filter(
      (option): option is PermissionOption =>
        typeof option === "object" && option !== null && typeof option.optionId === "string",
    );
    const sessionId = typeof p.sessionId === "string" ? p.sessionId : "";
    const title = typeof toolCall.title === "string" ? toolCall.title : "a tool call";
    const kind = typeof toolCall.kind === "string" ? toolCall.kind : null;
    const optionId = this.cancelling.has(sessionId)
      ? null
      : choosePermission(this.options.permission, options);
    const allowed =
      optionId !== null && options.find((o) => o.optionId === optionId)?.kind?.startsWith("allow");
    const decision: PermissionDecision = {
      title,
      kind,
      decision: allowed ? "allowed" : "denied",
      optionId,
    };
    this.permissions.push(decision);
    this.options.onEvent?.({ type: "permission", decision });
    return {
      outcome: optionId === null ? { outcome: "cancelled" } : { outcome: "selected", optionId },
    };
  }

  /** Resolve once no update for `sessionId` has come for the quiet period (bounded). */
  private replayQuiet(sessionId: string): Promise<void> {
    const quietMs = this.options.replayQuietMs ?? DEFAULT_REPLAY_QUIET_MS;
    const started = Date.now();
    return new Promise((resolve) => {
      const check = (): void => {
        const last = this.lastUpdateAt.get(sessionId) ?? 0;
        const now = Date.now();
        if (this.connection.closed || now - started >= REPLAY_WAIT_LIMIT_MS) resolve();
        else if (now - last >= quietMs) resolve();
        else setTimeout(check, quietMs - (now - last));
      };
      setTimeout(check, quietMs);
    });
  }
}

function sessionOf(sessionId: string, result: Record<string, unknown>): AcpSession {
  const modes = asObject(result.modes);
  const models = asObject(result.models);
  const available = Array.isArray(modes.availableModes) ? modes.availableModes : null;
  return {
    sessionId,
    modes: available
      ? {
          currentModeId: typeof modes.currentModeId === "string" ? modes.currentModeId : null,
          availableModes: available
            .map((mode) => asObject(mode).id)
            .filter((id): id is string => typeof id === "string"),
        }
      : null,
    model: typeof models.currentModelId === "string" ? models.currentModelId : null,
  };
}

function asObject(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}
