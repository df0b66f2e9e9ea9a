import { builtinVersion } from "./version.js";

// The uwf-builtin entry. `--version` answers before anything heavy loads; a signal aborts the
// step (the model request and any running command end at once). No top-level await: the
// bundle is CommonJS so that its compiled code can be cached (DESIGN §14).
async function main(argv: readonly string[]): Promise<void> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${builtinVersion()}\n`);
    return;
  }
  const { runAgentBinary } = await import("@united-workforce/agent-kit");
  const { builtinAgent } = await import("./builtin-agent.js");
  await runAgentBinary(builtinAgent);
}

void main(process.argv.slice(2));
