import type { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { isPlainObject } from "@united-workforce/protocol";

/** JSON-RPC 2.0 error codes the ACP client sends or meets. */
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;

/** An error response, from the peer or for it. */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
}

/** The connection ended (the peer exited, closed its output or wrote garbage). */
export class RpcClosedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RpcClosedError";
  }
}

export interface RpcHandlers {
  /** A request from the peer: return the result, or throw an `RpcError`. */
  onRequest(method: string, params: unknown): Promise<unknown> | unknown;
  onNotification(method: string, params: unknown): void;
}

type Id = number | string;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/** A line longer than this is not a message any agent sends: the stream is broken. */
const MAX_LINE_CHARS = 64 * 1024 * 1024;
const EXCERPT_CHARS = 200;

/**
 * JSON-RPC 2.0 over a pair of byte streams, one JSON message per line (ACP's stdio transport).
 * Responses are matched to requests by id; the peer's own requests and notifications go to
 * `handlers`. Anything that breaks the stream (EOF, a write error, a line that is not a JSON-RPC
 * message) closes the connection and fails every pending request with the reason: a caller never
 * waits for an answer that cannot come.
 */
export class JsonRpcConnection {
  private readonly pending = new Map<Id, Pending>();
  private readonly closeListeners: Array<(error: RpcClosedError) => void> = [];
  private nextId = 1;
  private buffer = "";
  private closedBy: RpcClosedError | null = null;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: RpcHandlers,
  ) {
    const decoder = new StringDecoder("utf8");
    input.on("data", (chunk: Buffer | string) => {
      this.receive(typeof chunk === "string" ? chunk : decoder.write(chunk));
    });
    input.on("end", () => {
      this.receive(decoder.end());
      if (this.buffer.trim() !== "") this.handleLine(this.buffer);
      this.close("the agent closed its output");
    });
    input.on("error", (error) => this.close(`reading from the agent failed: ${error.message}`));
    output.on("error", (error) => this.close(`writing to the agent failed: ${error.message}`));
  }

  /** Why the connection ended, or null while it is open. */
  get closed(): RpcClosedError | null {
    return this.closedBy;
  }

  onClose(listener: (error: RpcClosedError) => void): void {
    if (this.closedBy) listener(this.closedBy);
    else this.closeListeners.push(listener);
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.closedBy) this.send({ jsonrpc: "2.0", method, params });
  }

  /** End the connection: every pending request fails with `reason`. Idempotent. */
  close(reason: string): void {
    if (this.closedBy) return;
    const error = new RpcClosedError(reason);
    this.closedBy = error;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(new RpcClosedError(`${pending.method} got no answer: ${reason}`));
    }
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }

  private send(message: Record<string, unknown>): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  private receive(text: string): void {
    if (this.closedBy) return;
    this.buffer += text;
    let newline = this.buffer.indexOf("\n");
    while (newline !== -1 && !this.closedBy) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.handleLine(line);
      newline = this.buffer.indexOf("\n");
    }
    if (this.buffer.length > MAX_LINE_CHARS) {
      this.close(`the agent wrote a line longer than ${MAX_LINE_CHARS} characters`);
    }
  }

  private handleLine(raw: string): void {
    const line = raw.trim();
    if (line === "" || this.closedBy) return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.close(`the agent wrote a line that is not JSON: ${excerpt(line)}`);
      return;
    }
    if (!isPlainObject(message) || message.jsonrpc !== "2.0") {
      this.close(`the agent wrote a message that is not JSON-RPC 2.0: ${excerpt(line)}`);
      return;
    }
    const { id, method } = message;
    if (typeof method === "string") {
      if (id === undefined || id === null) this.handlers.onNotification(method, message.params);
      else if (isId(id)) void this.answer(id, method, message.params);
      else this.close(`the agent sent a request with an invalid id: ${excerpt(line)}`);
      return;
    }
    if (isId(id) && ("result" in message || "error" in message)) {
      this.settle(id, message);
      return;
    }
    this.close(
      `the agent wrote a message that is neither a request nor a response: ${excerpt(line)}`,
    );
  }

  private settle(id: Id, message: Record<string, unknown>): void {
    const pending = this.pending.get(id);
    // A response to nothing we asked (or asked and gave up on) changes nothing.
    if (!pending) return;
    this.pending.delete(id);
    if ("error" in message && message.error !== undefined && message.error !== null) {
      const error = isPlainObject(message.error) ? message.error : {};
      const code = typeof error.code === "number" ? error.code : RPC_INTERNAL_ERROR;
      const text = typeof error.message === "string" ? error.message : "unknown error";
      pending.reject(new RpcError(code, text, error.data));
    } else {
      pending.resolve(message.result ?? null);
    }
  }

  private async answer(id: Id, method: string, params: unknown): Promise<void> {
    try {
      const result = await this.handlers.onRequest(method, params);
      if (!this.closedBy) this.send({ jsonrpc: "2.0", id, result: result ?? null });
    } catch (error) {
      const rpc =
        error instanceof RpcError
          ? error
          : new RpcError(
              RPC_INTERNAL_ERROR,
              error instanceof Error ? error.message : String(error),
            );
      const body: Record<string, unknown> = { code: rpc.code, message: rpc.message };
      if (rpc.data !== undefined) body.data = rpc.data;
      if (!this.closedBy) this.send({ jsonrpc: "2.0", id, error: body });
    }
  }
}

function isId(value: unknown): value is Id {
  return typeof value === "number" || typeof value === "string";
}

function excerpt(line: string): string {
  return JSON.stringify(line.length > EXCERPT_CHARS ? `${line.slice(0, EXCERPT_CHARS)}…` : line);
}
