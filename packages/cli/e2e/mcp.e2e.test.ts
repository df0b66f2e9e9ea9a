import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const EXAMPLES = join(REPO_ROOT, "examples");
const mock = (scenario: string) => `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;

interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** `uwf mcp` in the temp home, spoken to by the SDK's own client over stdio. */
async function connect(home: string): Promise<{
  client: Client;
  /** The server's process id. */
  pid: number | null;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** The server's notice that a background run of `thread` ended. */
  runEnd(thread: string): Promise<Record<string, unknown>>;
}> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("UWF_")) env[name] = value;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [UWF_BIN, "mcp"],
    env: { ...env, UWF_HOME: home, HOME: home },
    cwd: home,
    stderr: "pipe",
  });
  const client = new Client({ name: "uwf-e2e", version: "1.0.0" });
  const waiters = new Map<string, (data: Record<string, unknown>) => void>();
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    const data = notification.params.data as Record<string, unknown>;
    waiters.get(String(data.thread))?.(data);
  });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as unknown as ToolResult,
    runEnd: (thread) => new Promise((resolve) => waiters.set(thread, resolve)),
  };
}

describe("uwf mcp", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  it("lists its tools, each with an input schema an agent can act on", async () => {
    const { client } = await connect(temp.home);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "workflow_list",
        "workflow_show",
        "thread_start",
        "thread_exec",
        "thread_show",
        "thread_read",
        "thread_list",
        "thread_answer",
      ]);
      for (const tool of tools) {
        expect(tool.description).toBeTruthy();
        expect(tool.inputSchema.type).toBe("object");
        for (const property of Object.values(tool.inputSchema.properties ?? {})) {
          expect((property as { description?: string }).description).toBeTruthy();
        }
      }
      const start = tools.find((t) => t.name === "thread_start")!;
      expect(start.inputSchema.required).toEqual(["workflow", "prompt"]);
    } finally {
      await client.close();
    }
  });

  it("starts a thread, runs it with uwf-mock in the background to completion, and reads it", async () => {
    const server = await connect(temp.home);
    try {
      const started = await server.call("thread_start", {
        workflow: join(EXAMPLES, "hello.yaml"),
        prompt: "Greet Ada",
        title: "Greeting",
      });
      expect(started.isError).toBeFalsy();
      expect(started.structuredContent).toMatchObject({ title: "Greeting", status: "idle" });
      const thread = started.structuredContent!.thread as string;
      // The text is the same document, for clients that read only text.
      expect(JSON.parse(started.content[0]!.text!)).toEqual(started.structuredContent);

      const ended = server.runEnd(thread);
      const exec = await server.call("thread_exec", {
        thread,
        agent: mock(join(EXAMPLES, "scenarios", "hello.yaml")),
        count: 5,
      });
      expect(exec.isError).toBeFalsy();
      expect(exec.structuredContent).toMatchObject({ thread });
      if (exec.structuredContent!.stoppedBecause === "background") {
        expect(exec.structuredContent).toMatchObject({ status: "running", steps: [] });
        expect(await ended).toMatchObject({ event: "exec.end", thread, status: "completed" });
      }

      const shown = await server.call("thread_show", { thread });
      expect(shown.structuredContent).toMatchObject({
        thread,
        status: "completed",
        steps: 1,
        currentRole: "greeter",
        lockHolder: null,
      });
      const read = await server.call("thread_read", { thread });
      expect(read.structuredContent!.markdown).toContain("Hello, Ada!");
      const listed = await server.call("thread_list", { status: "completed" });
      expect(listed.structuredContent).toMatchObject({ threads: [{ thread }], total: 1 });
      // The CLI sees the same thread in the same store.
      const cli = await runUwf(["thread", "show", thread, "--format", "json"], {
        home: temp.home,
      });
      expect(JSON.parse(cli.stdout)).toMatchObject({ status: "completed", steps: 1 });
    } finally {
      await server.client.close();
    }
  });

  it("answers a human role: the writer runs, the approver's answer routes the thread to its end", async () => {
    const server = await connect(temp.home);
    try {
      const { structuredContent: started } = await server.call("thread_start", {
        workflow: join(EXAMPLES, "approval-gate.yaml"),
        prompt: "Announce 2.0",
      });
      const thread = started!.thread as string;
      const ended = server.runEnd(thread);
      const exec = await server.call("thread_exec", {
        thread,
        agent: mock(join(EXAMPLES, "scenarios", "approval-gate.yaml")),
        count: 5,
      });
      if (exec.structuredContent!.stoppedBecause === "background") await ended;

      const waiting = await server.call("thread_show", { thread });
      expect(waiting.structuredContent).toMatchObject({
        status: "suspended",
        nextRole: "approver",
        suspended: { kind: "human", role: "approver" },
      });

      // An answer the role's schema refuses is a tool error that says why; nothing is written.
      const bad = await server.call("thread_answer", {
        thread,
        status: "rejected",
        fields: { x: 1 },
      });
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toContain('field "x" is not part of status "rejected"');

      const answered = await server.call("thread_answer", {
        thread,
        status: "approved",
        fields: { note: "Ship it." },
        message: "Looks good.",
      });
      expect(answered.isError).toBeFalsy();
      expect(answered.structuredContent).toMatchObject({
        thread,
        status: "completed",
        step: { role: "approver", status: "approved" },
      });
      const read = await server.call("thread_read", { thread });
      expect(read.structuredContent!.markdown).toContain("Ship it.");
    } finally {
      await server.client.close();
    }
  });

  it("returns errors as tool errors with the message and the hint", async () => {
    const server = await connect(temp.home);
    try {
      const unknown = await server.call("thread_show", { thread: "01JD0000000000000000000000" });
      expect(unknown.isError).toBe(true);
      expect(unknown.content[0]!.text).toMatch(/^error: no thread 01JD0+\nhint: /);
      expect(unknown.structuredContent).toMatchObject({
        error: { code: "THREAD_NOT_FOUND", exitCode: 1 },
      });

      const missing = await server.call("thread_start", { workflow: "hello" });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ error: { code: "USAGE" } });
      expect(missing.content[0]!.text).toContain("prompt");

      const noWorkflow = await server.call("thread_start", { workflow: "nope", prompt: "Go" });
      expect(noWorkflow.isError).toBe(true);
      expect(noWorkflow.content[0]!.text).toContain("hint: ");

      // `-p -` reads stdin, which is the protocol's here: refused, and the session goes on.
      const stdinTask = await server.call("thread_start", {
        workflow: join(EXAMPLES, "hello.yaml"),
        prompt: "-",
      });
      expect(stdinTask.structuredContent).toMatchObject({ error: { code: "USAGE" } });
      expect((await server.call("thread_list")).structuredContent).toEqual({
        threads: [],
        total: 0,
      });
    } finally {
      await server.client.close();
    }
  });

  it("ends on SIGTERM as on a closed stdin: its run stops and the lease is released", async () => {
    const server = await connect(temp.home);
    const { structuredContent: started } = await server.call("thread_start", {
      workflow: join(EXAMPLES, "hello.yaml"),
      prompt: "Greet Ada",
    });
    const thread = started!.thread as string;
    const scenario = writeScenario(temp.home, [
      { role: "greeter", wait_for: join(temp.home, "never"), output: { $status: "done" } },
    ]);
    const exec = await server.call("thread_exec", { thread, agent: mock(scenario) });
    expect(exec.structuredContent).toMatchObject({ stoppedBecause: "background" });
    const exited = new Promise<void>((resolve) => {
      server.client.onclose = resolve;
    });
    process.kill(server.pid!, "SIGTERM");
    await exited;

    const shown = await runUwf(["thread", "show", thread, "--format", "json"], {
      home: temp.home,
    });
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: "idle", steps: 0, lockHolder: null });
  });

  it("stops a background run when the client goes away: the lease is released, nothing is lost", async () => {
    const server = await connect(temp.home);
    const { structuredContent: started } = await server.call("thread_start", {
      workflow: join(EXAMPLES, "hello.yaml"),
      prompt: "Greet Ada",
    });
    const thread = started!.thread as string;
    // The step waits for a file that never comes: it is still running when the client leaves.
    const scenario = writeScenario(temp.home, [
      { role: "greeter", wait_for: join(temp.home, "never"), output: { $status: "done" } },
    ]);
    const exec = await server.call("thread_exec", { thread, agent: mock(scenario) });
    expect(exec.structuredContent).toMatchObject({
      status: "running",
      stoppedBecause: "background",
    });
    expect((await server.call("thread_show", { thread })).structuredContent).toMatchObject({
      status: "running",
      lockHolder: { pid: expect.any(Number) },
    });
    // One run per thread, as with `uwf thread exec`.
    const again = await server.call("thread_exec", { thread, agent: mock(scenario) });
    expect(again.structuredContent).toMatchObject({ error: { code: "THREAD_BUSY" } });
    await server.client.close();

    const shown = await runUwf(["thread", "show", thread, "--format", "json"], {
      home: temp.home,
    });
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: "idle", steps: 0, lockHolder: null });
  });
});
