import { runAgentBinary } from "@united-workforce/agent-kit";
import { ExitCode } from "@united-workforce/protocol";
import { codexAgent } from "./codex-agent.js";
import { versionText, wantsVersion } from "./version.js";

// The uwf-codex entry: a signal aborts the step, which ends codex's whole process group.
// No top-level await: the bundle is CommonJS so that its compiled code can be cached.
async function main(argv: string[]): Promise<void> {
  if (wantsVersion(argv)) {
    const version = await versionText(argv, process.env, process.cwd());
    process.stdout.write(version.text);
    process.exitCode = version.ok ? ExitCode.ok : ExitCode.error;
  } else {
    await runAgentBinary(codexAgent);
  }
}

void main(process.argv.slice(2));
