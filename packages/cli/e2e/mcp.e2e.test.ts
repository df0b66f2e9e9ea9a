import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  LoggingMessageNotificationSchema,
  type Task,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
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
  /** `thread_exec` called as a task: the task it made. */
  execTask(args: Record<string, unknown>): Promise<Task>;
  /** The server's notice of a task's new status (sent when a task's run ends). */
  taskStatus(thread: string): Promise<Task>;
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
  const statusWaiters = new Map<string, (task: Task) => void>();
  client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
    statusWaiters.get(notification.params.taskId)?.(notification.params);
  });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as unknown as ToolResult,
    runEnd: (thread) => new Promise((resolve) => waiters.set(thread, resolve)),
    execTask: async (args) =>
      (
        await client.request(
          { method: "tools/call", params: { name: "thread_exec", arguments: args, task: {} } },
          CreateTaskResultSchema,
        )
      ).task,
    taskStatus: (thread) => new Promise((resolve) => statusWaiters.set(thread, resolve)),
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
        more: false,
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

describe("uwf mcp: thread_exec as an MCP task (the task is the thread)", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  async function startThread(
    server: Awaited<ReturnType<typeof connect>>,
    workflow: string,
  ): Promise<string> {
    const started = await server.call("thread_start", {
      workflow: join(EXAMPLES, workflow),
      prompt: "Announce 2.0 to Ada",
    });
    return started.structuredContent!.thread as string;
  }

  it("declares tasks, runs a task to completed, and gives the thread's document as its result", async () => {
    const server = await connect(temp.home);
    try {
      expect(server.client.getServerCapabilities()?.tasks).toMatchObject({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { tools } = await server.client.listTools();
      expect(
        tools.filter((t) => t.execution?.taskSupport === "optional").map((t) => t.name),
      ).toEqual(["thread_exec"]);
      const thread = await startThread(server, "hello.yaml");

      // The SDK's own helper: it creates the task, polls tasks/get, then fetches tasks/result.
      const messages = [];
      for await (const message of server.client.experimental.tasks.callToolStream(
        {
          name: "thread_exec",
          arguments: { thread, agent: mock(join(EXAMPLES, "scenarios", "hello.yaml")) },
        },
        undefined,
        { task: {} },
      )) {
        messages.push(message);
      }
      expect(messages[0]).toMatchObject({ type: "taskCreated", task: { taskId: thread } });
      const statuses = messages.flatMap((m) => (m.type === "taskStatus" ? [m.task.status] : []));
      expect(statuses.at(-1)).toBe("completed");
      expect(statuses.every((s) => s === "working" || s === "completed")).toBe(true);
      const last = messages.at(-1)!;
      expect(last.type).toBe("result");
      const result = (last as { result: { isError?: boolean; structuredContent?: unknown } })
        .result;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ thread, status: "completed", steps: 1 });

      const task = await server.client.experimental.tasks.getTask(thread);
      expect(task).toMatchObject({ taskId: thread, status: "completed", ttl: null });
      const { tasks } = await server.client.experimental.tasks.listTasks();
      expect(tasks).toEqual([expect.objectContaining({ taskId: thread, status: "completed" })]);
    } finally {
      await server.client.close();
    }
  });

  it("is input_required while a human role waits; thread_answer and a second task exec move the same task", async () => {
    const server = await connect(temp.home);
    try {
      const thread = await startThread(server, "approval-gate.yaml");
      const agent = mock(join(EXAMPLES, "scenarios", "approval-gate.yaml"));
      let ended = server.taskStatus(thread);
      const created = await server.execTask({ thread, agent, count: 5 });
      // Working, unless the writer's step has already ended.
      expect(created).toMatchObject({ taskId: thread, ttl: null, pollInterval: 500 });
      const waiting = await ended;
      expect(waiting).toMatchObject({ taskId: thread, status: "input_required" });
      expect(waiting.statusMessage).toContain("role approver waits for a person");
      expect(waiting.statusMessage).toContain("thread_answer");
      expect(await server.client.experimental.tasks.getTask(thread)).toMatchObject({
        status: "input_required",
        statusMessage: waiting.statusMessage,
      });

      await server.call("thread_answer", {
        thread,
        status: "rejected",
        fields: { reason: "Mention the migration guide." },
      });
      const idle = await server.client.experimental.tasks.getTask(thread);
      expect(idle).toMatchObject({ status: "input_required" });
      expect(idle.statusMessage).toContain("next role writer");
      expect(idle.statusMessage).toContain("call thread_exec");

      ended = server.taskStatus(thread);
      expect(await server.execTask({ thread, agent, count: 5 })).toMatchObject({
        taskId: thread,
      });
      expect(await ended).toMatchObject({ status: "input_required" });
      await server.call("thread_answer", { thread, status: "approved" });

      expect(await server.client.experimental.tasks.getTask(thread)).toMatchObject({
        status: "completed",
      });
      const result = await server.client.experimental.tasks.getTaskResult(
        thread,
        CallToolResultSchema,
      );
      expect(result.structuredContent).toMatchObject({ thread, status: "completed", steps: 4 });
      // A task exec of a completed thread runs nothing and gives the same, ended task.
      expect(await server.execTask({ thread, agent })).toMatchObject({
        taskId: thread,
        status: "completed",
      });
    } finally {
      await server.client.close();
    }
  });

  it("follows its thread when a terminal exec moves it, and outlives the session", async () => {
    const first = await connect(temp.home);
    let thread: string;
    try {
      thread = await startThread(first, "hello.yaml");
      expect(await first.client.experimental.tasks.getTask(thread)).toMatchObject({
        status: "input_required",
        statusMessage: expect.stringContaining("call thread_exec"),
      });
      const exec = await runUwf(
        ["thread", "exec", thread, "--agent", mock(join(EXAMPLES, "scenarios", "hello.yaml"))],
        { home: temp.home },
      );
      expect(exec.code).toBe(0);
      expect(await first.client.experimental.tasks.getTask(thread)).toMatchObject({
        status: "completed",
      });
    } finally {
      await first.client.close();
    }
    const second = await connect(temp.home);
    try {
      expect(await second.client.experimental.tasks.getTask(thread)).toMatchObject({
        taskId: thread,
        status: "completed",
      });
      const result = await second.client.experimental.tasks.getTaskResult(
        thread,
        CallToolResultSchema,
      );
      expect(result.structuredContent).toMatchObject({ thread, status: "completed" });
    } finally {
      await second.client.close();
    }
  });

  it("tasks/cancel stops the session's run and cancels the thread; the session goes on", async () => {
    const server = await connect(temp.home);
    try {
      const thread = await startThread(server, "hello.yaml");
      const scenario = writeScenario(temp.home, [
        { role: "greeter", wait_for: join(temp.home, "never"), output: { $status: "done" } },
      ]);
      expect(await server.execTask({ thread, agent: mock(scenario) })).toMatchObject({
        status: "working",
        statusMessage: expect.stringContaining("in this uwf mcp server"),
      });
      const cancelled = await server.client.experimental.tasks.cancelTask(thread);
      expect(cancelled).toMatchObject({ taskId: thread, status: "cancelled" });
      expect((await server.call("thread_show", { thread })).structuredContent).toMatchObject({
        status: "cancelled",
        lockHolder: null,
      });
      await expect(server.client.experimental.tasks.cancelTask(thread)).rejects.toThrow(
        /terminal status: cancelled/,
      );
      const result = await server.client.experimental.tasks.getTaskResult(
        thread,
        CallToolResultSchema,
      );
      expect(result).toMatchObject({ isError: true, structuredContent: { status: "cancelled" } });
    } finally {
      await server.client.close();
    }
  });

  it("refuses unknown task ids, task calls of other tools, and a task exec of no thread", async () => {
    const server = await connect(temp.home);
    try {
      const tasks = server.client.experimental.tasks;
      await expect(tasks.getTask("01JD0000000000000000000000")).rejects.toThrow(/Task not found/);
      await expect(tasks.getTask("nope")).rejects.toThrow(/Task not found/);
      await expect(
        tasks.getTaskResult("01JD0000000000000000000000", CallToolResultSchema),
      ).rejects.toThrow(/Task not found/);
      await expect(tasks.cancelTask("01JD0000000000000000000000")).rejects.toThrow(/not found/);
      await expect(
        server.client.request(
          { method: "tools/call", params: { name: "thread_list", arguments: {}, task: {} } },
          CreateTaskResultSchema,
        ),
      ).rejects.toThrow(/thread_list cannot be called as a task/);
      await expect(server.execTask({ thread: "01JD0000000000000000000000" })).rejects.toThrow(
        /error: no thread 01JD0+\nhint: /,
      );
      // Calls without a task are as they were.
      expect((await server.call("thread_list")).structuredContent).toEqual({
        threads: [],
        more: false,
        total: 0,
      });
    } finally {
      await server.client.close();
    }
  });
});
