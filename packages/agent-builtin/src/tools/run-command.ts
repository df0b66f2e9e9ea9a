import { minimalEnv } from "@united-workforce/agent-kit";
import { KILL_GRACE, runProcessGroup } from "@united-workforce/util";
import { optionalInteger, type ToolArgs } from "./args.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

export interface CommandLimits {
  /** The longest a command may run, and the default when the model names no timeout. */
  timeoutMs: number;
  /** Output kept (stdout and stderr together); the rest is counted, not kept. */
  maxBytes: number;
  /** The whole environment the command gets. */
  env: Record<string, string>;
  signal?: AbortSignal;
}

export interface CommandResult {
  output: string;
  isError: boolean;
}

/**
 * Run `argv` with no shell in the working directory, in its own process group, with stdin
 * closed. The group is ended when the command times out or the step is aborted (SIGTERM, then
 * SIGKILL after the nested grace), and killed once the command has exited (so nothing it
 * started outlives the tool call).
 */
export async function runCommandTool(
  ws: Workspace,
  args: ToolArgs,
  limits: CommandLimits,
): Promise<CommandResult> {
  const argv = args.argv;
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
    throw new ToolError(
      `"argv" must be a non-empty array of strings, e.g. ["git", "status"] (no shell: pipes and globs are not expanded)`,
    );
  }
  const [command, ...rest] = argv as string[];
  if (command === "") throw new ToolError(`argv[0] must name a program`);
  const asked = optionalInteger(args, "timeout_seconds", 1);
  const timeoutMs = Math.min(
    asked === undefined ? limits.timeoutMs : asked * 1000,
    limits.timeoutMs,
  );

  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  const take = (data: Buffer): void => {
    const room = limits.maxBytes - kept;
    if (room > 0) {
      const part = data.subarray(0, room);
      chunks.push(part);
      kept += part.length;
    }
    dropped += Math.max(0, data.length - Math.max(room, 0));
  };

  let outcome: Awaited<ReturnType<typeof runProcessGroup>>;
  try {
    outcome = await runProcessGroup({
      command: command!,
      args: rest,
      cwd: ws.root,
      env: limits.env,
      // The command runs inside the adapter: it must be gone before uwf's SIGKILL of the step.
      graceMs: KILL_GRACE.nested,
      timeoutMs,
      signal: limits.signal,
      stdout: { onData: take },
      stderr: { onData: take },
    });
  } catch (error) {
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === "ENOENT") throw new ToolError(`program "${command}" not found on PATH`);
    if (code === "EACCES") throw new ToolError(`program "${command}" is not executable`);
    throw error;
  }
  const output = Buffer.concat(chunks).toString("utf8");
  const cut = dropped > 0 ? `\n[… ${dropped} more bytes of output cut]` : "";
  const shown = output === "" ? "(no output)" : output;
  if (outcome.timedOut) {
    return {
      output: `killed after ${timeoutMs / 1000} s (the command's time limit)\n${shown}${cut}`,
      isError: true,
    };
  }
  const status =
    outcome.exitCode !== null ? `exit code ${outcome.exitCode}` : `killed by ${outcome.signal}`;
  return { output: `${status}\n${shown}${cut}`, isError: outcome.exitCode !== 0 };
}

/**
 * The environment of the commands the model runs: the toolkit's minimal one (where programs
 * and files are, the locale, proxies and CA bundles; no keys), plus the time zone and no colour.
 */
export function commandEnvironment(
  env: Record<string, string | undefined>,
): Record<string, string> {
  return minimalEnv(env, { passThrough: ["TZ"], extra: { NO_COLOR: "1" } });
}
