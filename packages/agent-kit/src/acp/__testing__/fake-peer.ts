import { PassThrough } from "node:stream";

export type Message = Record<string, unknown> & {
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * The agent's side of an in-process stdio pair: what the client writes arrives here as parsed
 * messages, in order; what the test sends arrives at the client as lines.
 */
export interface FakePeer {
  /** The client reads from this (the agent's stdout). */
  toClient: PassThrough;
  /** The client writes to this (the agent's stdin). */
  toAgent: PassThrough;
  /** The next message the client wrote (waits for it). */
  next(): Promise<Message>;
  /** The next message the client wrote with this method, skipping others. */
  nextCall(method: string): Promise<Message>;
  send(message: Record<string, unknown>): void;
  sendRaw(text: string): void;
  reply(request: Message, result: unknown): void;
  notify(method: string, params: unknown): void;
  update(sessionId: string, update: Record<string, unknown>): void;
}

export function fakePeer(): FakePeer {
  const toClient = new PassThrough();
  const toAgent = new PassThrough();
  const queue: Message[] = [];
  const waiting: Array<(message: Message) => void> = [];
  let buffer = "";
  toAgent.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const message = JSON.parse(buffer.slice(0, newline)) as Message;
      buffer = buffer.slice(newline + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else queue.push(message);
      newline = buffer.indexOf("\n");
    }
  });
  const next = (): Promise<Message> => {
    const queued = queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => waiting.push(resolve));
  };
  const send = (message: Record<string, unknown>): void => {
    toClient.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  return {
    toClient,
    toAgent,
    next,
    async nextCall(method) {
      for (;;) {
        const message = await next();
        if (message.method === method) return message;
      }
    },
    send,
    sendRaw: (text) => toClient.write(text),
    reply: (request, result) => send({ id: request.id, result }),
    notify: (method, params) => send({ method, params }),
    update: (sessionId, update) =>
      send({ method: "session/update", params: { sessionId, update } }),
  };
}

export function chunk(text: string): Record<string, unknown> {
  return { sessionUpdate: "agent_message_chunk", content: { type: "text", text } };
}
