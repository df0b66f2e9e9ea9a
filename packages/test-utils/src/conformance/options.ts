import type { AgentHome } from "../agent-clis.js";
import type { FakeFailure, FakeStep } from "../fake-llm/script.js";
import type { FakeLlm } from "../fake-llm/server.js";

// What the adapter conformance cases are: their names, what an adapter tells them, and the
// sandbox each case runs in.

export const CONFORMANCE_CASES = [
  "full-workflow",
  "resume-session",
  "tool-writes-file",
  "repair-in-session",
  "http-400",
  "http-500",
  "transient-retry",
  "transient-suspend",
  "hung-model",
  "usage",
] as const;
export type ConformanceCaseName = (typeof CONFORMANCE_CASES)[number];

/** What the cases need to know about one adapter and the CLI it drives. */
export interface AdapterConformanceOptions {
  /** The adapter's command (a path, or a name on the test's PATH) and its own arguments. */
  command: string;
  args?: string[];
  /**
   * Arguments that turn the CLI's own API retries off (e.g. `--max-retries 0`): every case
   * runs with them, so a failing model fails at once.
   */
  noRetryArgs?: string[];
  /** The provider entry for the fake: its `api`, and the model name the CLI is given. */
  provider: { api: "anthropic" | "openai-chat" | "openai-responses" | "gemini"; model: string };
  /** The provider's base URL for the fake (default `<fake>/v1`). */
  baseUrl?: (fake: FakeLlm) => string;
  /** The fake's tool call that makes this CLI write `content` into `path` (relative to cwd). */
  writeFileTool: (file: { path: string; content: string }) => FakeStep["tool"];
  /** Extra environment for uwf (and so the adapter): a binary override, the CLI's settings. */
  env?: (sandbox: ConformanceSandbox) => Record<string, string>;
  /** Prepare the agent's HOME before uwf runs (a CLI config file). */
  prepare?: (sandbox: ConformanceSandbox) => void;
  /** Cases to leave out, each with the reason (shown in the case name). */
  skip?: Partial<Record<ConformanceCaseName, string>>;
  /** Per-case test timeout in ms (default 30 s; the full workflow gets twice this). */
  timeoutMs?: number;
  /** The agent's `timeoutSeconds` in the hung-model case (default 8). */
  hungTimeoutSeconds?: number;
  /**
   * The transient-suspend case: the fake's endless failure (default: HTTP 429 with
   * `retry-after: 90` and a message saying "try again in 90 seconds"), and the wait the
   * adapter is expected to pass on to uwf (default 90 s, give or take `toleranceSeconds`);
   * `waitSeconds: null` when the CLI hides every wait, so uwf's own backoff sets the time.
   */
  transient?: {
    /** Made when the case starts, so that a reset time in it is counted from then. */
    failure?: () => FakeFailure;
    waitSeconds: number | null;
    toleranceSeconds?: number;
  };
}

/** One case, for `it(case.name, case.run, case.timeoutMs)`. */
export interface ConformanceCase {
  name: ConformanceCaseName;
  title: string;
  skipped: string | null;
  timeoutMs: number;
  run: () => Promise<void>;
}

/** The folders and the fake of one case. */
export interface ConformanceSandbox {
  root: string;
  uwfHome: string;
  /** The temp git repository: the thread's and so the agent's cwd. */
  repo: string;
  agent: AgentHome;
  fake: FakeLlm;
}
