import type { Readable, Writable } from "node:stream";
import { KILL_GRACE, type ProcessGroup, startProcessGroup } from "@united-workforce/util";

export interface AgentProcessOptions {
  command: string;
  args: string[];
  cwd: string;
  /** The agent's whole environment: nothing is inherited. */
  env: Record<string, string>;
}

export interface AgentExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (ENOENT, EACCES…). */
  error: NodeJS.ErrnoException | null;
}

const STDERR_TAIL_CHARS = 4_000;
/** After stdin closes, how long an agent gets to exit by itself before its group is ended. */
const EXIT_GRACE_MS = 1_500;

/**
 * A long-lived agent process speaking over stdio: no shell, its own process group (so ending it
 * ends whatever it started too), stdin/stdout for the protocol, stderr kept as a bounded tail
 * for error messages. It runs inside an adapter, so its group is ended by the nested grace.
 */
export class AgentProcess {
  /** The agent's stdin: the protocol's requests go there. */
  readonly stdin: Writable;
  /** The agent's stdout: the protocol's answers and notifications come from there. */
  readonly stdout: Readable;
  /** Resolves once the process has exited (or failed to start). */
  readonly exited: Promise<AgentExitStatus>;
  #group: ProcessGroup;
  #tail = "";
  #status: AgentExitStatus | null = null;

  constructor(options: AgentProcessOptions) {
    this.#group = startProcessGroup({ ...options, stdin: "open", graceMs: KILL_GRACE.nested });
    // "open" gives a stdin, one that takes nothing when the agent could not start.
    this.stdin = this.#group.stdin as Writable;
    this.stdout = this.#group.stdout;
    this.#group.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.#tail = (this.#tail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    this.exited = this.#group.exited.then(({ exitCode, signal, error }) => {
      this.#status = { code: exitCode, signal, error };
      return this.#status;
    });
  }

  get pid(): number | undefined {
    return this.#group.pid;
  }

  /** The exit status once the process has ended, null while it runs. */
  get exitStatus(): AgentExitStatus | null {
    return this.#status;
  }

  /** The last few KB the agent wrote on stderr. */
  stderrTail(): string {
    return this.#tail;
  }

  /**
   * End the agent politely: close its stdin (ACP agents exit on EOF), wait a moment, then end
   * its process group, which also takes agents that ignore EOF and anything they started.
   */
  async stop(): Promise<void> {
    await this.#group.stop(EXIT_GRACE_MS);
  }

  /** End the process group now: SIGTERM, then SIGKILL for whatever is left. */
  async killGroup(): Promise<void> {
    await this.#group.end();
  }
}
