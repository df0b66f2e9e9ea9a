import { Writable } from "node:stream";
import type { ErrorDocument, JsonSchema, ThreadExecDocument } from "@united-workforce/protocol";
import { errorFields, isInternal, UwfError } from "@united-workforce/util";
import type { CommandContext } from "../commands/command.js";
import { inBackground } from "../dashboard/answer.js";
import { VERSION } from "../version.js";
import { type PreparedCommand, prepareCommand } from "./invoke.js";
import { MCP_TOOLS, type McpTool, type ToolInput } from "./tools.js";

/** What a session did, for `uwf mcp`'s document when it ends. */
export interface McpSessionSummary {
  calls: number;
  runs: number;
}

const INSTRUCTIONS =
  "uwf runs multi-role agent workflows as threads, one step at a time, with the history kept in its store. To get work done: workflow_list (or a workflow file's path), thread_start with a task, thread_exec with a count (it returns at once and runs in the background of this server), then thread_show until the status is completed or suspended, and thread_read for what each role wrote. A thread suspended with kind `human` waits for a person: thread_answer, then thread_exec again.";

/**
 * Serve the Model Context Protocol on `stdin` and `ctx.output` (stdout carries protocol only;
 * notes go to stderr) until the client closes stdin or `ctx.signal` aborts. Each tool runs its
 * CLI command in this process (MCP_TOOLS); `thread_exec` runs in the background here, so the
 * session stays daemonless: when it ends, its runs are interrupted as a Ctrl-C'd exec is (the
 * agent stopped, the lease released, the head as the last finished step left it).
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
  const summary: McpSessionSummary = { calls: 0, runs: 0 };

  const server = new Server(
    { name: "uwf", version: VERSION },
    { capabilities: { tools: {}, logging: {} }, instructions: INSTRUCTIONS },
  );
  const tell = (level: "info" | "error", data: Record<string, unknown>): void => {
    if (stop.signal.aborted) return;
    server.sendLoggingMessage({ level, logger: "uwf", data }).catch(() => {});
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: MCP_TOOLS.map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (tool === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `uwf has no tool "${request.params.name}"`);
    }
    summary.calls++;
    try {
      const input = await checkInput(tool, request.params.arguments ?? {});
      const command = await prepareCommand(session, tool.invocation(input));
      const document = tool.background?.(input)
        ? await runInBackground(command)
        : (await tracked(command.run())).document;
      // The document as structured content, and as JSON text for clients that read only text.
      return {
        content: [{ type: "text" as const, text: JSON.stringify(document) }],
        structuredContent: document as Record<string, unknown>,
      };
    } catch (error) {
      return toolError(ctx, tool, error);
    }
  });

  /**
   * `thread_exec`: its command's handler, run here without waiting for it. Returns the run's
   * document when it ended before its first step started, else says it runs in the background.
   */
  async function runInBackground(command: PreparedCommand): Promise<ThreadExecDocument> {
    const thread = command.args[0]!;
    const run = command.run();
    const outcome = await inBackground({ events: session.events, runs }, thread, () => run);
    summary.runs++;
    if (outcome === "finished") return (await run).document as ThreadExecDocument;
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
