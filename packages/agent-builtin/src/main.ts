import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { builtinAgent } from "./builtin-agent.js";
import { builtinVersion } from "./version.js";

// The uwf-builtin entry. A signal aborts the step (the model request and any running command
// end at once). The definition is light: the step's code loads only with a step, so
// `--version` and `--help` answer before anything heavy loads. No top-level await: the bundle
// is CommonJS so that its compiled code can be cached (DESIGN §14).
async function main(argv: readonly string[]): Promise<void> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${builtinVersion()}\n`);
    return;
  }
  await runAgentBinary(builtinAgent);
}

void main(process.argv.slice(2));
