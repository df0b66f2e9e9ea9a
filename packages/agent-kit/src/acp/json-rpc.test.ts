import { describe, expect, it } from "vitest";
import { fakePeer } from "./__testing__/fake-peer.js";
import { JsonRpcConnection, RPC_METHOD_NOT_FOUND, RpcClosedError, RpcError } from "./json-rpc.js";

function connect(handlers: Partial<ConstructorParameters<typeof JsonRpcConnection>[2]> = {}): {
  peer: ReturnType<typeof fakePeer>;
  connection: JsonRpcConnection;
  notes: string[];
} {
  const peer = fakePeer();
  const notes: string[] = [];
  const connection = new JsonRpcConnection(peer.toClient, peer.toAgent, {
    onRequest:
      handlers.onRequest ??
      ((method) => {
        throw new RpcError(RPC_METHOD_NOT_FOUND, `method not found: ${method}`);
      }),
    onNotification: handlers.onNotification ?? ((method) => notes.push(method)),
  });
  return { peer, connection, notes };
}

describe("JsonRpcConnection", () => {
  it("matches responses to requests by id, in whatever order they come", async () => {
    const { peer, connection } = connect();
    const first = connection.request("first", { n: 1 });
    const second = connection.request("second", { n: 2 });
    const a = await peer.next();
    const b = await peer.next();
    expect(a).toMatchObject({ jsonrpc: "2.0", method: "first", params: { n: 1 } });
    expect(b.id).not.toBe(a.id);
    peer.reply(b, { answer: "two" });
    peer.reply(a, { answer: "one" });
    await expect(first).resolves.toEqual({ answer: "one" });
    await expect(second).resolves.toEqual({ answer: "two" });
  });

  it("rejects a request the peer answered with an error, keeping code and data", async () => {
    const { peer, connection } = connect();
    const pending = connection.request("session/prompt", {});
    const request = await peer.next();
    peer.send({
      id: request.id,
      error: { code: -32603, message: "Internal error", data: { details: "quota" } },
    });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({
      code: -32603,
      message: "Internal error",
      data: { details: "quota" },
    });
  });

  it("reads messages split across chunks, multi-byte characters included", async () => {
    const { peer, connection } = connect();
    const pending = connection.request("echo", {});
    const request = await peer.next();
    const line = `${JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { text: "héllo ✓" } })}\n`;
    const bytes = Buffer.from(line, "utf8");
    const cut = bytes.indexOf(Buffer.from("✓")) + 1;
    peer.toClient.write(bytes.subarray(0, cut));
    peer.toClient.write(bytes.subarray(cut));
    await expect(pending).resolves.toEqual({ text: "héllo ✓" });
  });

  it("answers a request for an unknown method with -32601 and keeps going", async () => {
    const { peer, connection } = connect();
    peer.send({ id: "x1", method: "terminal/create", params: {} });
    const answer = await peer.next();
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: "x1",
      error: { code: RPC_METHOD_NOT_FOUND, message: "method not found: terminal/create" },
    });
    const pending = connection.request("still/alive", {});
    peer.reply(await peer.next(), "yes");
    await expect(pending).resolves.toBe("yes");
  });

  it("passes a handler's result back, and an unexpected throw as an internal error", async () => {
    const { peer } = connect({
      onRequest: (method) => {
        if (method === "ok") return { fine: true };
        throw new Error("disk full");
      },
    });
    peer.send({ id: 1, method: "ok", params: {} });
    expect(await peer.next()).toEqual({ jsonrpc: "2.0", id: 1, result: { fine: true } });
    peer.send({ id: 2, method: "bad", params: {} });
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32603, message: "disk full" },
    });
  });

  it("hands notifications to the handler", async () => {
    const { peer, connection, notes } = connect();
    peer.notify("_auth/status_update", { ok: true });
    peer.notify("session/update", {});
    const pending = connection.request("sync", {});
    peer.reply(await peer.next(), null);
    await pending;
    expect(notes).toEqual(["_auth/status_update", "session/update"]);
  });

  it("fails every pending request when the peer writes a line that is not JSON", async () => {
    const { peer, connection } = connect();
    const first = connection.request("initialize", {});
    const second = connection.request("session/new", {});
    await peer.next();
    peer.sendRaw("Loaded cached credentials.\n");
    const error = await first.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcClosedError);
    expect((error as Error).message).toBe(
      'initialize got no answer: the agent wrote a line that is not JSON: "Loaded cached credentials."',
    );
    await expect(second).rejects.toThrow(/session\/new got no answer: the agent wrote a line/);
    await expect(connection.request("later", {})).rejects.toThrow(/not JSON/);
  });

  it("fails pending requests on JSON that is not JSON-RPC", async () => {
    const { peer, connection } = connect();
    const pending = connection.request("initialize", {});
    peer.sendRaw('{"hello":"world"}\n');
    await expect(pending).rejects.toThrow(/not JSON-RPC 2.0: "\{\\"hello\\":\\"world\\"\}"/);
  });

  it("fails pending requests when the peer closes its output", async () => {
    const { peer, connection } = connect();
    const closed: string[] = [];
    connection.onClose((error) => closed.push(error.message));
    const pending = connection.request("session/prompt", {});
    peer.toClient.end();
    await expect(pending).rejects.toThrow(
      "session/prompt got no answer: the agent closed its output",
    );
    expect(closed).toEqual(["the agent closed its output"]);
  });

  it("ignores a response to a request it never made", async () => {
    const { peer, connection } = connect();
    peer.send({ id: 999, result: {} });
    const pending = connection.request("real", {});
    peer.reply(await peer.next(), "ok");
    await expect(pending).resolves.toBe("ok");
  });
});
