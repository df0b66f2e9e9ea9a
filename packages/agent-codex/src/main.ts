import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { ExitCode } from "@united-workforce/protocol";
import { codexAgent } from "./codex-agent.js";

// The uwf-codex entry: a signal aborts the step, which ends codex's whole process group.
// No top-level await: the bundle is CommonJS so that its compiled code can be cached.
// `--version` (which runs `codex --version`) loads its code only when asked (DESIGN §14).
async function main(argv: string[]): Promise<void> {
  if (wantsVersion(argv)) {
    const { versionText } = await import("./version.js");
    const version = await versionText(argv, process.env, process.cwd());
    process.stdout.write(version.text);
    process.exitCode = version.ok ? ExitCode.ok : ExitCode.error;
  } else {
    await runAgentBinary(codexAgent);
  }
}

function wantsVersion(argv: string[]): boolean {
  return argv.includes("--version") || argv.includes("-V");
}

void main(process.argv.slice(2));
