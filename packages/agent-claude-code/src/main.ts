import { runAgentBinary } from "@united-workforce/agent-kit";
import { claudeCodeAgent } from "./claude-agent.js";
import { versionText } from "./version.js";

// The uwf-claude-code entry: a signal aborts the step, which ends claude's whole process group.
const argv = process.argv.slice(2);
if (argv[0] === "--version" || argv[0] === "-V") {
  process.stdout.write(await versionText(process.env));
} else {
  await runAgentBinary(claudeCodeAgent);
}
