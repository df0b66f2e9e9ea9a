import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chunk, type FakePeer, fakePeer, type Message } from "./__testing__/fake-peer.js";
import {
  AcpClient,
  type AcpClientOptions,
  type AcpEvent,
  PromptCancelledError,
} from "./acp-client.js";
import { RPC_METHOD_NOT_FOUND } from "./json-rpc.js";
import { choosePermission } from "./permission.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "uwf-acp-")));
  dirs.push(dir);
  return dir;
}

function setup(options: Partial<AcpClientOptions> = {}): {
  peer: FakePeer;
  client: AcpClient;
  events: AcpEvent[];
} {
  const peer = fakePeer();
  const events: AcpEvent[] = [];
  const client = new AcpClient(peer.toClient, peer.toAgent, {
    clientInfo: { name: "uwf-acp", version: "0.0.0" },
    permission: "allow",
    onEvent: (event) => events.push(event),
    replayQuietMs: 20,
    ...options,
  });
  return { peer, client, events };
}

/** Start a prompt and return it with the request the agent saw. */
async function startPrompt(
  peer: FakePeer,
  client: AcpClient,
  text = "do it",
  signal?: AbortSignal,
): Promise<{ request: Message; done: ReturnType<AcpClient["prompt"]> }> {
  const done = client.prompt("s1", text, signal);
  const request = await peer.nextCall("session/prompt");
  return { request, done };
}

const GEMINI_OPTIONS = [
  { optionId: "proceed_always", name: "Allow All Edits", kind: "allow_always" },
  { optionId: "proceed_once", name: "Allow", kind: "allow_once" },
  { optionId: "cancel", name: "Reject", kind: "reject_once" },
];

describe("AcpClient", () => {
  it("initializes with protocol 1 and says whether the agent can load sessions", async () => {
    const { peer, client } = setup();
    const hello = client.initialize();
    const request = await peer.next();
    expect(request).toMatchObject({
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: {
          fs: { readTextFile: false, writeTextFile: false },
          terminal: false,
          session: { notices: {} },
        },
        clientInfo: { name: "uwf-acp" },
      },
    });
    peer.reply(request, {
      protocolVersion: 1,
      agentInfo: { name: "gemini-cli", version: "0.61.0" },
      agentCapabilities: { loadSession: true },
    });
    await expect(hello).resolves.toEqual({
      protocolVersion: 1,
      name: "gemini-cli",
      version: "0.61.0",
      loadSession: true,
    });
  });

  it("refuses an agent that answers with another protocol version", async () => {
    const { peer, client } = setup();
    const hello = client.initialize();
    peer.reply(await peer.next(), { protocolVersion: 2 });
    await expect(hello).rejects.toThrow(
      "the agent speaks ACP protocol version 2; this client speaks version 1",
    );
  });

  it("opens a session in the cwd with no MCP servers and reads its modes", async () => {
    const { peer, client } = setup();
    const session = client.newSession("/work/project");
    const request = await peer.next();
    expect(request).toMatchObject({
      method: "session/new",
      params: { cwd: "/work/project", mcpServers: [] },
    });
    peer.reply(request, {
      sessionId: "s1",
      modes: { currentModeId: "default", availableModes: [{ id: "default" }, { id: "yolo" }] },
      models: { currentModelId: "gemini-2.5-flash" },
    });
    await expect(session).resolves.toEqual({
      sessionId: "s1",
      modes: { currentModeId: "default", availableModes: ["default", "yolo"] },
      model: "gemini-2.5-flash",
    });
  });

  it("collects this prompt's turns; the answer is what the agent said last", async () => {
    const { peer, client, events } = setup();
    peer.update("s1", chunk("left over from before"));
    const { request, done } = await startPrompt(peer, client, "write hello.txt");
    expect(request.params).toEqual({
      sessionId: "s1",
      prompt: [{ type: "text", text: "write hello.txt" }],
    });
    peer.notify("_auth/status_update", { status: "ok" });
    peer.update("s1", { sessionUpdate: "plan", entries: [] });
    peer.update("s1", chunk("I'll write "));
    peer.update("s1", chunk("the file."));
    peer.update("s1", {
      sessionUpdate: "tool_call",
      toolCallId: "t1",
      title: "Writing to hello.txt",
      kind: "edit",
      status: "pending",
      rawInput: { file_path: "hello.txt", content: "hi" },
    });
    peer.update("s1", {
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "wrote 2 bytes" } }],
    });
    peer.update("other-session", chunk("not ours"));
    peer.update("s1", chunk("---\n$status: done\n---\n"));
    peer.update("s1", chunk("done."));
    peer.reply(request, {
      stopReason: "end_turn",
      _meta: { quota: { token_count: { input_tokens: 20, output_tokens: 10 } } },
    });
    const outcome = await done;
    expect(outcome.stopReason).toBe("end_turn");
    expect(outcome.turn.answer).toBe("---\n$status: done\n---\ndone.");
    expect(outcome.turn.records()).toEqual([
      {
        text: "I'll write the file.",
        toolCalls: [
          {
            name: "Writing to hello.txt",
            input: { file_path: "hello.txt", content: "hi" },
            output: "wrote 2 bytes",
          },
        ],
        usage: null,
      },
      { text: "---\n$status: done\n---\ndone.", toolCalls: [], usage: null },
    ]);
    expect(outcome.turn.usage(outcome.result)).toEqual({
      inputTokens: 20,
      outputTokens: 10,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd: null,
      turns: 2,
    });
    expect(
      events.map((e) => (e.type === "tool" ? `${e.call.title} ${e.call.status}` : "")),
    ).toEqual(["Writing to hello.txt pending", "Writing to hello.txt completed"]);
  });

  it("keeps a notice out of the answer, and reports it", async () => {
    const { peer, client, events } = setup();
    const { request, done } = await startPrompt(peer, client, "go");
    const warning = "Model metadata for `qwen3-coder` not found.";
    peer.update("s1", { sessionUpdate: "notice", severity: "warning", title: warning });
    peer.update("s1", chunk("---\n$status: done\n---\n"));
    peer.reply(request, { stopReason: "end_turn" });
    const outcome = await done;
    expect(outcome.turn.answer).toBe("---\n$status: done\n---\n");
    expect(outcome.turn.notices).toEqual([{ severity: "warning", title: warning }]);
    expect(events).toEqual([{ type: "notice", notice: { severity: "warning", title: warning } }]);
  });

  it("takes usage from the result's usage field and the cost from usage_update growth", async () => {
    const { peer, client } = setup();
    peer.update("s1", {
      sessionUpdate: "usage_update",
      used: 10,
      size: 100,
      cost: { amount: 0.5, currency: "USD" },
    });
    const { request, done } = await startPrompt(peer, client);
    peer.update("s1", chunk("answer"));
    peer.update("s1", {
      sessionUpdate: "usage_update",
      used: 30,
      size: 100,
      cost: { amount: 0.75, currency: "USD" },
    });
    peer.reply(request, {
      stopReason: "end_turn",
      usage: { totalTokens: 12, inputTokens: 7, outputTokens: 5, cachedReadTokens: 3 },
    });
    const outcome = await done;
    expect(outcome.turn.usage(outcome.result)).toEqual({
      inputTokens: 7,
      outputTokens: 5,
      cacheReadTokens: 3,
      cacheWriteTokens: null,
      costUsd: 0.25,
      turns: 1,
    });
  });

  it("keeps unknown usage null rather than zero", async () => {
    const { peer, client } = setup();
    const { request, done } = await startPrompt(peer, client);
    peer.reply(request, { stopReason: "end_turn", _meta: { quota: { token_count: null } } });
    const outcome = await done;
    expect(outcome.turn.usage(outcome.result)).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      costUsd: null,
      turns: null,
    });
    expect(outcome.turn.answer).toBe("");
  });

  it("answers a permission request with an allow option under the allow policy", async () => {
    const { peer, client, events } = setup({ permission: "allow" });
    const { request, done } = await startPrompt(peer, client);
    peer.send({
      id: 7,
      method: "session/request_permission",
      params: {
        sessionId: "s1",
        toolCall: { title: "Writing to hello.txt", kind: "edit" },
        options: GEMINI_OPTIONS,
      },
    });
    expect(await peer.next()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { outcome: { outcome: "selected", optionId: "proceed_once" } },
    });
    peer.reply(request, { stopReason: "end_turn" });
    await done;
    expect(events).toEqual([
      {
        type: "permission",
        decision: {
          title: "Writing to hello.txt",
          kind: "edit",
          decision: "allowed",
          optionId: "proceed_once",
        },
      },
    ]);
    expect(client.permissions).toHaveLength(1);
  });

  it("answers with a reject option under the deny policy", async () => {
    const { peer, client } = setup({ permission: "deny" });
    peer.send({
      id: 8,
      method: "session/request_permission",
      params: { sessionId: "s1", toolCall: { title: "rm -rf build" }, options: GEMINI_OPTIONS },
    });
    expect((await peer.next()).result).toEqual({
      outcome: { outcome: "selected", optionId: "cancel" },
    });
    expect(client.permissions).toEqual([
      { title: "rm -rf build", kind: null, decision: "denied", optionId: "cancel" },
    ]);
  });

  it("never picks the opposite kind: with no fitting option the answer is cancelled", () => {
    const onlyAllow = [{ optionId: "yes", kind: "allow_always" }];
    const onlyReject = [{ optionId: "no", kind: "reject_always" }];
    expect(choosePermission("allow", onlyAllow)).toBe("yes");
    expect(choosePermission("deny", onlyAllow)).toBeNull();
    expect(choosePermission("allow", onlyReject)).toBeNull();
    expect(choosePermission("allow", [])).toBeNull();
  });

  it("does not serve fs requests unless it advertised them", async () => {
    const { peer } = setup();
    peer.send({
      id: 3,
      method: "fs/read_text_file",
      params: { sessionId: "s1", path: "/etc/passwd" },
    });
    expect((await peer.next()).error).toEqual({
      code: RPC_METHOD_NOT_FOUND,
      message: "method not found: fs/read_text_file",
    });
  });

  it("serves fs requests inside the root and refuses paths that leave it, symlinks too", async () => {
    const root = tempDir();
    const outside = tempDir();
    writeFileSync(join(root, "notes.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(outside, "secret.txt"), "secret");
    symlinkSync(outside, join(root, "escape"));
    symlinkSync(join(outside, "missing.txt"), join(root, "dangling.txt"));
    const { peer, client } = setup({ fsRoot: root });
    const hello = client.initialize();
    const init = await peer.next();
    expect(init.params).toMatchObject({
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    peer.reply(init, { protocolVersion: 1 });
    await hello;

    const call = async (method: string, params: Record<string, unknown>): Promise<Message> => {
      peer.send({
        id: method + JSON.stringify(params),
        method,
        params: { sessionId: "s1", ...params },
      });
      return peer.next();
    };
    expect(
      (await call("fs/read_text_file", { path: join(root, "notes.txt"), line: 2, limit: 1 }))
        .result,
    ).toEqual({
      content: "two",
    });
    expect(
      (await call("fs/write_text_file", { path: join(root, "new/dir/out.txt"), content: "hi" }))
        .result,
    ).toBeNull();
    expect(readFileSync(join(root, "new/dir/out.txt"), "utf8")).toBe("hi");

    for (const [method, params] of [
      ["fs/read_text_file", { path: join(root, "../", "x.txt") }],
      ["fs/read_text_file", { path: join(root, "escape/secret.txt") }],
      ["fs/write_text_file", { path: join(root, "escape/planted.txt"), content: "x" }],
      ["fs/write_text_file", { path: join(root, "dangling.txt"), content: "x" }],
      ["fs/read_text_file", { path: "relative.txt" }],
    ] as const) {
      const answer = await call(method, params);
      expect(answer.error?.code, `${method} ${JSON.stringify(params)}`).toBe(-32602);
    }
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect(existsSync(join(outside, "missing.txt"))).toBe(false);
  });

  it("cancels the turn when the signal aborts and answers pending permissions cancelled", async () => {
    const { peer, client } = setup();
    const controller = new AbortController();
    const { request, done } = await startPrompt(peer, client, "slow", controller.signal);
    controller.abort();
    expect(await peer.next()).toMatchObject({
      method: "session/cancel",
      params: { sessionId: "s1" },
    });
    peer.send({
      id: 11,
      method: "session/request_permission",
      params: { sessionId: "s1", toolCall: { title: "late tool" }, options: GEMINI_OPTIONS },
    });
    expect((await peer.next()).result).toEqual({ outcome: { outcome: "cancelled" } });
    peer.reply(request, { stopReason: "cancelled" });
    await expect(done).rejects.toBeInstanceOf(PromptCancelledError);
  });

  it("gives up on a cancel the agent never confirms", async () => {
    const { peer, client } = setup({ cancelGraceMs: 10 });
    const controller = new AbortController();
    const { done } = await startPrompt(peer, client, "stuck", controller.signal);
    controller.abort();
    await expect(done).rejects.toThrow("the agent did not confirm the cancel in time");
  });

  it("does not count history replayed after the load answer as the next answer", async () => {
    const { peer, client } = setup();
    const loaded = client.loadSession("s1", "/work/project");
    const request = await peer.next();
    expect(request).toMatchObject({
      method: "session/load",
      params: { sessionId: "s1", cwd: "/work/project", mcpServers: [] },
    });
    peer.update("s1", {
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "first prompt" },
    });
    peer.reply(request, { modes: { currentModeId: "default", availableModes: [] } });
    peer.update("s1", chunk("first answer, replayed"));
    await loaded;
    const { request: prompt, done } = await startPrompt(peer, client, "second prompt");
    peer.update("s1", chunk("second answer"));
    peer.reply(prompt, { stopReason: "end_turn" });
    expect((await done).turn.answer).toBe("second answer");
  });

  it("fails a running prompt when the agent closes its output", async () => {
    const { peer, client } = setup();
    const { done } = await startPrompt(peer, client);
    peer.update("s1", chunk("partial"));
    peer.toClient.end();
    await expect(done).rejects.toThrow("session/prompt got no answer: the agent closed its output");
  });
});

describe("the fs root", () => {
  it("must exist", () => {
    const missing = join(tempDir(), "nope");
    expect(() => setup({ fsRoot: missing })).toThrow(/ENOENT/);
    mkdirSync(missing);
    expect(() => setup({ fsRoot: missing })).not.toThrow();
  });
});
