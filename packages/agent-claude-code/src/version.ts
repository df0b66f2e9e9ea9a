import { readFileSync } from "node:fs";
import { minimalEnv, spawnAgentCli } from "@united-workforce/agent-kit";
import { CLAUDE_LOGIN_ENV } from "./invocation.js";

// The bundler defines this; unbundled runs (tests) read the package's own package.json.
declare const __UWF_VERSION__: string | undefined;

export const VERSION: string =
  typeof __UWF_VERSION__ === "string"
    ? __UWF_VERSION__
    : (
        JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
          version: string;
        }
      ).version;

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
