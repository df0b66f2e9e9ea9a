import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { claudeCodeAgent } from "./claude-agent.js";

// The uwf-claude-code entry: a signal aborts the step, which ends claude's whole process group.
// No top-level await: the bundle is CommonJS so that its compiled code can be cached.
// `--version` (which runs `claude --version`) loads its code only when asked (DESIGN §14).
async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === "--version" || argv[0] === "-V") {
    const { versionText } = await import("./version.js");
    process.stdout.write(await versionText(process.env));
  } else {
    await runAgentBinary(claudeCodeAgent);
  }
}

void main(process.argv.slice(2));
