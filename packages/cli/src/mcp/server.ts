import { Writable } from "node:stream";
import type { ErrorDocument, JsonSchema, ThreadExecDocument } from "@united-workforce/protocol";
import { errorFields, isInternal, UwfError } from "@united-workforce/util";
import type { CommandContext } from "../commands/command.js";
import { inBackground } from "../dashboard/answer.js";
import { VERSION } from "../version.js";
import { type PreparedCommand, prepareCommand } from "./invoke.js";
import type { Task } from "./sdk.js";
import { threadTaskStore } from "./tasks.js";
import { MCP_TOOLS, type McpTool, type ToolInput } from "./tools.js";

/** What a session did, for `uwf mcp`'s document when it ends. */
export interface McpSessionSummary {
  calls: number;
  runs: number;
}

const INSTRUCTIONS =
  "uwf runs multi-role agent workflows as threads, one step at a time, with the history kept in its store. To get work done: workflow_list (or a workflow file's path), thread_start with a task, thread_exec with a count (it returns at once and runs in the background of this server), then thread_show until the status is completed or suspended, and thread_read for what each role wrote. A thread suspended with kind `human` waits for a person: thread_answer, then thread_exec again. A client with MCP tasks can call thread_exec as a task: the task is the thread (its id is the thread id), `input_required` while the thread waits for a person or for the next thread_exec.";

/**
 * Serve the Model Context Protocol on `stdin` and `ctx.output` (stdout carries protocol only;
 * notes go to stderr) until the client closes stdin or `ctx.signal` aborts. Each tool runs its
 * CLI command in this process (MCP_TOOLS); `thread_exec` runs in the background here, so the
 * session stays daemonless: when it ends, its runs are interrupted as a Ctrl-C'd exec is (the
 * agent stopped, the lease released, the head as the last finished step left it).
 *
 * `thread_exec` may also be called as an MCP task: the task is the thread, read from the store
 * at each `tasks/get` (tasks.ts), and `tasks/cancel` cancels the thread.
 */
export async function serveMcp(
  ctx: CommandContext,
  stdin: NodeJS.ReadableStream & { once(event: string, listener: () => void): unknown },
): Promise<McpSessionSummary> {
  const {
    CallToolRequestSchema,
    ErrorCode,
    ListToolsRequestSchema,
    McpError,
    Server,
    StdioServerTransport,
  } = await import("./sdk.js");
  const checkInput = inputChecker(ctx);

  const stop = new AbortController();
  const onAbort = (): void => stop.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  // The tools' commands run here as with `--format json`, and never write to stdout.
  const session: CommandContext = {
    ...ctx,
    format: "json",
    signal: stop.signal,
    columns: () => undefined,
    output: (text) => ctx.progress(text),
  };
  // Calls under way and background runs: the session ends once they have stopped.
  const runs = new Set<Promise<unknown>>();
  const tracked = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(
      () => {},
      () => {},
    );
    runs.add(settled);
    void settled.finally(() => runs.delete(settled));
    return work;
  };
  // This session's background runs by thread, each stoppable alone (a cancelled task).
  const held = new Map<string, { stop: AbortController; run: Promise<unknown> }>();
  const summary: McpSessionSummary = { calls: 0, runs: 0 };
  const tasks = threadTaskStore(session, cancelThread);

  const server = new Server(
    { name: "uwf", version: VERSION },
    {
      capabilities: {
        tools: {},
        logging: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      instructions: INSTRUCTIONS,
      taskStore: tasks,
    },
  );
  const tell = (level: "info" | "error", data: Record<string, unknown>): void => {
    if (stop.signal.aborted) return;
    server.sendLoggingMessage({ level, logger: "uwf", data }).catch(() => {});
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map(({ name, description, inputSchema, task }) => ({
      name,
      description,
      inputSchema,
      ...(task ? { execution: { taskSupport: "optional" as const } } : {}),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (tool === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `uwf has no tool "${request.params.name}"`);
    }
    const asTask = request.params.task !== undefined;
    if (asTask && tool.task !== true) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `${tool.name} cannot be called as a task: only thread_exec can (its task is the thread)`,
      );
    }
    summary.calls++;
    try {
      const input = await checkInput(tool, request.params.arguments ?? {});
      if (!asTask && tool.background?.(input) !== true) {
        const command = await prepareCommand(session, tool.invocation(input));
        return toolResult((await tracked(command.run())).document);
      }
      // A background run has a signal of its own, so that cancelling its task stops it alone.
      const stopRun = new AbortController();
      const command = await prepareCommand(
        { ...session, signal: stopRun.signal },
        tool.invocation(input),
      );
      const document = await runInBackground(command, stopRun, asTask);
      if (!asTask) return toolResult(document);
      return { task: await threadTask(document.thread) };
    } catch (error) {
      const failed = toolError(ctx, tool, error);
      if (!asTask) return failed;
      // No task was made (no such thread, a run refused): the call's error says why.
      throw new McpError(
        isInternal(error) ? ErrorCode.InternalError : ErrorCode.InvalidParams,
        failed.content[0]!.text,
        failed.structuredContent,
      );
    }
  });

  /** The thread's task as it is now: a thread just ran by this session exists. */
  async function threadTask(thread: string): Promise<Task> {
    const task = await tasks.getTask(thread);
    if (task === null) throw new Error(`thread ${thread} has no task`);
    return task;
  }

  /**
   * `tasks/cancel`: cancel the thread as `uwf thread cancel` does. A run of this session is
   * stopped first, as an interrupted exec (`uwf thread cancel` would signal its holder, which
   * is this process); a run elsewhere is stopped by the cancel itself.
   */
  async function cancelThread(thread: string): Promise<void> {
    const run = held.get(thread);
    if (run !== undefined) {
      run.stop.abort("task cancelled");
      await run.run.catch(() => {});
    }
    const command = await prepareCommand(session, {
      path: ["thread", "cancel"],
      args: [thread],
      options: {},
    });
    await tracked(command.run());
  }

  /**
   * `thread_exec`: its command's handler, run here without waiting for it. Returns the run's
   * document when it ended before its first step started, else says it runs in the background.
   */
  async function runInBackground(
    command: PreparedCommand,
    stopRun: AbortController,
    asTask: boolean,
  ): Promise<ThreadExecDocument> {
    const thread = command.args[0]!;
    const endWithSession = (): void => stopRun.abort(stop.signal.reason);
    if (stop.signal.aborted) endWithSession();
    else stop.signal.addEventListener("abort", endWithSession, { once: true });
    const run = command.run();
    void run
      .finally(() => stop.signal.removeEventListener("abort", endWithSession))
      .catch(() => {});
    const outcome = await inBackground({ events: session.events, runs }, thread, () => run);
    summary.runs++;
    if (outcome === "finished") return (await run).document as ThreadExecDocument;
    const entry = { stop: stopRun, run };
    held.set(thread, entry);
    void run
      .finally(() => {
        if (held.get(thread) === entry) held.delete(thread);
        // A task's client learns its new status without asking (notifications/tasks/status);
        // a run stopped (the session ends, its task is being cancelled) has nothing to tell.
        if (asTask && !stopRun.signal.aborted) {
          void threadTask(thread)
            .then((task) =>
              server.notification({ method: "notifications/tasks/status", params: task }),
            )
            .catch(() => {});
        }
      })
      .catch(() => {});
    void run.then(
      ({ document }) => {
        const { status, stoppedBecause, message, steps } = document as ThreadExecDocument;
        tell("info", {
          event: "exec.end",
          thread,
          status,
          stoppedBecause,
          message,
          steps: steps.length,
        });
      },
      (error: unknown) => {
        const { code, message, hint } = errorFields(error);
        tell("error", { event: "exec.error", thread, code, message, hint });
      },
    );
    return {
      thread,
      status: "running",
      stoppedBecause: "background",
      message: `running in the background of this uwf mcp server (pid ${process.pid}); follow it with thread_show, read it with thread_read`,
      steps: [],
      pid: process.pid,
    };
  }

  const transport = new StdioServerTransport(
    stdin as never,
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        ctx.output(chunk.toString());
        done();
      },
    }),
  );
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.connect(transport);
  ctx.progress(`uwf mcp: serving ${MCP_TOOLS.length} tools on stdio`);
  await ended;
  // The session is over: its runs stop as an interrupted exec does, and are waited for.
  stop.abort("session ended");
  ctx.signal.removeEventListener("abort", onAbort);
  await Promise.allSettled([...runs]);
  await server.close();
  return summary;
}

/** The document as structured content, and as JSON text for clients that read only text. */
function toolResult(document: unknown) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(document) }],
    structuredContent: document as Record<string, unknown>,
  };
}

/** A failed call: the tool error an agent reads (message and hint), and the error document. */
function toolError(ctx: CommandContext, tool: McpTool, error: unknown) {
  const { code, message, hint, exitCode, details } = errorFields(error);
  if (isInternal(error)) {
    ctx.events.emit("command.crashed", {
      command: `mcp ${tool.name}`,
      message,
      ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
    });
  }
  const document: ErrorDocument = { error: { code, message, hint, exitCode, ...details } };
  const text = hint ? `error: ${message}\nhint: ${hint}` : `error: ${message}`;
  return {
    isError: true,
    content: [{ type: "text" as const, text }],
    structuredContent: document as unknown as Record<string, unknown>,
  };
}

/**
 * Checks a call's arguments against its tool's schema, with the store's validators (compiled
 * once, cached on disk like a workflow's); USAGE names what does not fit. The store is opened
 * at the first call, so a store that cannot be opened is that call's error, not the server's.
 */
function inputChecker(ctx: CommandContext): (tool: McpTool, input: unknown) => Promise<ToolInput> {
  const validators = new Map<string, (payload: unknown) => { valid: boolean; errors: string[] }>();
  return async (tool, input) => {
    let validate = validators.get(tool.name);
    if (validate === undefined) {
      const { cas } = await ctx.store();
      validate = cas.schemaValidator(tool.inputSchema as unknown as JsonSchema).validate;
      validators.set(tool.name, validate);
    }
    const { valid, errors } = validate(input);
    if (valid) return input as ToolInput;
    throw new UwfError("USAGE", `${tool.name}: ${errors.join("; ")}`, {
      hint: `Call ${tool.name} with the arguments its input schema describes (tools/list).`,
    });
  };
}
