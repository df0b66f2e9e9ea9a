import type { SchemaMap } from "@united-workforce/engine/adapter";
import type {
  Hash,
  RolePayload,
  StartPayload,
  ThreadPointer,
  Usage,
  WorkflowPayload,
} from "@united-workforce/protocol";
import type { HistoryEntry } from "../context/history.js";
import type { ResumableSession, TurnRecord } from "../session/sessions.js";
import type { AgentOptionSpec, AgentOptionValues } from "./argv.js";
import type { GuidanceInbox } from "./guidance.js";

/** Where an agent process reads and writes; tests pass their own. */
export interface AgentIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  signal?: AbortSignal;
  /** Aborts `signal`: given with it, the step uses them rather than a signal of its own. */
  abort?: (reason: Error) => void;
}

/** What `run` and `continue` get: the step to do, fully prepared. */
export interface AgentContext {
  /** The adapter's name, e.g. `uwf-mock`; stored as the step's `agent`. */
  agent: string;
  thread: string;
  role: string;
  /** The moderator's instruction for this step (`--prompt`). */
  edgePrompt: string;
  /** The assembled prompt to give the agent. */
  prompt: string;
  /** The `## Output Format` section alone, e.g. for a system prompt. */
  outputFormat: string;
  /** The step's working directory (the process cwd). */
  cwd: string;
  home: string;
  env: Record<string, string | undefined>;
  /** `--model <alias>` (the agent's `model` in config.yaml); null: the agent's own default. */
  model: string | null;
  options: AgentOptionValues;
  /** The words after `--` on the command line, for adapters that accept them (`passthrough`). */
  passthrough: string[];
  schema: SchemaMap;
  workflow: WorkflowPayload;
  roleDefinition: RolePayload;
  start: StartPayload;
  startHash: Hash;
  /** The head the step builds on; the StepNode's `prev` unless it is the StartNode. */
  head: Hash;
  pointer: ThreadPointer;
  /** How many steps the chain already has (0 for the first step). */
  stepIndex: number;
  history: HistoryEntry[];
  historyTruncated: boolean;
  /**
   * The session this role worked in on its previous visit, when this adapter opened it in this
   * same cwd: resume it (`claude --resume`, `codex exec resume`, ACP `session/load`), so the
   * agent remembers its own earlier turns. `detail` is the detail of the step that last used
   * it, where an adapter keeps state the agent itself does not. Null on a role's first visit.
   */
  resumeSession: ResumableSession | null;
  /**
   * `thread steer` notes that arrive while the step runs. An adapter whose agent accepts input
   * mid-run takes them as it gives them to the agent (they are recorded in the step's detail);
   * one that does not leaves them, and the thread's next step takes them in its prompt.
   */
  guidance: GuidanceInbox;
  signal?: AbortSignal;
  /** Print one progress line on stderr (prefixed with the adapter's name). */
  progress: (message: string) => void;
  /** Write raw text to stderr. */
  stderr: (text: string) => void;
}

export interface AgentRunResult {
  /** The agent's answer: markdown starting with YAML frontmatter. */
  text: string;
  /**
   * Adapter session record merged into the detail node: `model`, `sessionId` (recorded so the
   * role's next visit can resume it), `turns` (each stored as a `turn` node), anything else.
   */
  detail?: AgentDetail;
  usage?: Partial<Usage>;
  /** Opaque state handed to `continue` for a correction in the same session. */
  session?: unknown;
}

/** What an adapter reports about its run; other keys are kept as they are. */
export interface AgentDetail {
  model?: string | null;
  sessionId?: string | null;
  turns?: TurnRecord[];
  [key: string]: unknown;
}

export interface AgentDefinition {
  /** The adapter's binary name, e.g. `uwf-mock`. */
  name: string;
  run: (ctx: AgentContext) => Promise<AgentRunResult>;
  /** Send a correction in the same session. Without it, invalid output is not repaired by the agent. */
  continue?: (ctx: AgentContext, session: unknown, correction: string) => Promise<AgentRunResult>;
  /** Adapter-specific flags, by name without the leading `--`. */
  options?: Record<string, AgentOptionSpec>;
  /** Accept words after `--` (`ctx.passthrough`); the text names them in `--help`. */
  passthrough?: string;
  /** Characters of history in the prompt (default 20,000); `--history-quota` overrides. */
  historyQuota?: number;
  /** Corrections sent to the agent before giving up on it (default 2). */
  maxRepairs?: number;
  /** Timeout of the extract-model request (default 60 s). */
  extractTimeoutMs?: number;
}

/** An agent entry point: returns the process exit code, never exits itself. */
export type AgentMain = (argv?: string[], io?: Partial<AgentIo>) => Promise<number>;

/**
 * Thrown by an adapter to end the process with a given code and no step, optionally printing
 * raw text on stdout first (uwf-mock's scripted failures).
 */
export class AgentExit extends Error {
  readonly exitCode: number;
  readonly stdout: string | undefined;

  constructor(exitCode: number, message = "", options: { stdout?: string } = {}) {
    super(message);
    this.name = "AgentExit";
    this.exitCode = exitCode;
    this.stdout = options.stdout;
  }
}
