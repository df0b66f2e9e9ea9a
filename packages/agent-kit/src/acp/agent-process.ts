import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

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
/** Between SIGTERM and SIGKILL to the group. */
const KILL_GRACE_MS = 500;

/**
 * A long-lived agent process speaking over stdio: no shell, its own process group (so ending it
 * ends whatever it started too), stdin/stdout for the protocol, stderr kept as a bounded tail
 * for error messages.
 */
export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once the process has exited (or failed to start). */
  readonly exited: Promise<AgentExitStatus>;
  private tail = "";
  private status: AgentExitStatus | null = null;

  constructor(options: AgentProcessOptions) {
    this.child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: process.platform !== "win32",
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.tail = (this.tail + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // A write to an agent that has gone reports through the connection, not as a crash.
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => {
      this.child.once("error", (error: NodeJS.ErrnoException) => {
        if (this.child.pid === undefined) {
          this.status ??= { code: null, signal: null, error };
          resolve(this.status);
        }
      });
      this.child.once("exit", (code, signal) => {
        this.status ??= { code, signal, error: null };
        resolve(this.status);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The exit status once the process has ended, null while it runs. */
  get exitStatus(): AgentExitStatus | null {
    return this.status;
  }

  /** The last few KB the agent wrote on stderr. */
  stderrTail(): string {
    return this.tail;
  }

  /**
   * End the agent politely: close its stdin (ACP agents exit on EOF), wait a moment, then end
   * its process group, which also takes agents that ignore EOF and anything they started.
   */
  async stop(): Promise<void> {
    this.child.stdin.end();
    await this.waitExit(EXIT_GRACE_MS);
    await this.killGroup();
  }

  /** End the process group now: SIGTERM, then SIGKILL for whatever is left. */
  async killGroup(): Promise<void> {
    if (this.signalGroup("SIGTERM")) {
      await this.waitExit(KILL_GRACE_MS);
      this.signalGroup("SIGKILL");
    }
    await this.waitExit(KILL_GRACE_MS);
  }

  /** Whether any process of the group was there to signal. */
  private signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(process.platform === "win32" ? pid : -pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  private async waitExit(ms: number): Promise<void> {
    if (this.status) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      }),
    ]);
    clearTimeout(timer);
  }
}
