import { AcpClient, type AcpClientOptions, type AgentHello } from "./acp-client.js";
import { type AgentExitStatus, AgentProcess, type AgentProcessOptions } from "./agent-process.js";
import { RpcClosedError } from "./json-rpc.js";

/** A running ACP agent: its process, the client talking to it, and what it said about itself. */
export interface AcpAgent {
  process: AgentProcess;
  client: AcpClient;
  hello: AgentHello;
  /** Close stdin, let the agent exit, end its process group. Idempotent. */
  close(): Promise<void>;
}

const EXIT_WAIT_MS = 1_000;

/**
 * Start an ACP agent and `initialize` it. When it cannot start, exits, or breaks the protocol,
 * the error says so with the tail of its stderr; the process group is gone either way.
 */
export async function startAcpAgent(
  options: AgentProcessOptions & AcpClientOptions & { signal?: AbortSignal },
): Promise<AcpAgent> {
  options.signal?.throwIfAborted();
  const agentProcess = new AgentProcess(options);
  const client = new AcpClient(agentProcess.stdout, agentProcess.stdin, options);
  void agentProcess.exited.then((status) =>
    client.connection.close(exitReason(options.command, status)),
  );
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      client.connection.close("uwf closed the connection");
      await agentProcess.stop();
    })();
    return closing;
  };
  // Aborted while starting (agents take seconds to initialize): end it now.
  const onAbort = (): void => void agentProcess.killGroup();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const hello = await client.initialize();
    return { process: agentProcess, client, hello, close };
  } catch (error) {
    const explained = await explainFailure(agentProcess, error);
    await close();
    throw explained;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * An error from talking to the agent, explained: when the connection broke because the agent
 * ended, the message says how it ended and what it printed last.
 */
export async function explainFailure(agentProcess: AgentProcess, error: unknown): Promise<Error> {
  if (!(error instanceof RpcClosedError))
    return error instanceof Error ? error : new Error(String(error));
  let timer: NodeJS.Timeout | undefined;
  const status = await Promise.race([
    agentProcess.exited,
    new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), EXIT_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  const parts = [error.message];
  if (status && !error.message.includes("exited")) parts.push(`(${describeExit(status)})`);
  const tail = lastLines(agentProcess.stderrTail(), 8);
  if (tail) parts.push(`\nits stderr ended with:\n${tail}`);
  return new RpcClosedError(parts.join(" "));
}

function exitReason(command: string, status: AgentExitStatus): string {
  if (status.error) return `cannot start "${command}": ${status.error.message}`;
  return `the agent ${describeExit(status)}`;
}

function describeExit(status: AgentExitStatus): string {
  if (status.error) return `it could not start: ${status.error.message}`;
  if (status.signal) return `exited on signal ${status.signal}`;
  return `exited with code ${status.code}`;
}

function lastLines(text: string, count: number): string {
  return text
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line !== "")
    .slice(-count)
    .map((line) => `  ${line}`)
    .join("\n");
}
