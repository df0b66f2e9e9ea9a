import { spawnAgentCli } from "@united-workforce/agent-kit";
import { errorMessage, isUwfError, packageVersion } from "@united-workforce/util";
import { CODEX_INSTALL_HINT, codexEnv } from "./command.js";

export const VERSION: string = packageVersion(() => import.meta.url);

/**
 * `uwf-codex --version`: the adapter's version and the codex it would run (`--codex-bin`,
 * `UWF_CODEX_BIN`, else `codex` on PATH), or why that codex cannot be run.
 */
export async function versionText(
  argv: string[],
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ text: string; ok: boolean }> {
  const bin = binFromArgv(argv) ?? (env.UWF_CODEX_BIN || "codex");
  const lines: string[] = [];
  try {
    const outcome = await spawnAgentCli({
      command: bin,
      args: ["--version"],
      cwd,
      env: codexEnv(env, null),
      timeoutMs: 15_000,
      notFoundHint: CODEX_INSTALL_HINT,
      onStdoutLine: (line) => {
        if (line.trim() !== "") lines.push(line.trim());
      },
    });
    if (outcome.exitCode !== 0 || lines.length === 0) {
      const why = outcome.timedOut ? "timed out" : `exited with code ${outcome.exitCode}`;
      return { text: `uwf-codex ${VERSION}\ncodex: "${bin} --version" ${why}\n`, ok: false };
    }
  } catch (error) {
    const hint = isUwfError(error) && error.hint ? `\n${error.hint}` : "";
    return { text: `uwf-codex ${VERSION}\ncodex: ${errorMessage(error)}${hint}\n`, ok: false };
  }
  return { text: `uwf-codex ${VERSION}\n${lines.join("\n")}\n`, ok: true };
}

function binFromArgv(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--codex-bin") return argv[i + 1];
    if (arg.startsWith("--codex-bin=")) return arg.slice("--codex-bin=".length);
  }
  return undefined;
}
