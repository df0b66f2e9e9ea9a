import { minimalEnv, spawnAgentCli } from "@united-workforce/agent-kit";
import { packageVersion } from "@united-workforce/util";
import { CLAUDE_LOGIN_ENV } from "./invocation.js";

export const VERSION: string = packageVersion(() => import.meta.url);

/** `uwf-claude-code --version`: this adapter's version, then the claude CLI's, or why not. */
export async function versionText(env: Record<string, string | undefined>): Promise<string> {
  const command = env.UWF_CLAUDE_BIN || "claude";
  let claude = "";
  try {
    const lines: string[] = [];
    const outcome = await spawnAgentCli({
      command,
      args: ["--version"],
      cwd: process.cwd(),
      env: minimalEnv(env, { passThrough: CLAUDE_LOGIN_ENV }),
      timeoutMs: 15_000,
      onStdoutLine: (line) => lines.push(line),
    });
    claude =
      outcome.exitCode === 0 && lines.length > 0
        ? lines.join(" ").trim()
        : `${command} --version failed: ${outcome.stderrTail.trim() || `exit ${outcome.exitCode}`}`;
  } catch (error) {
    claude = (error as Error).message;
  }
  return `uwf-claude-code ${VERSION}\nclaude: ${claude}\n`;
}
