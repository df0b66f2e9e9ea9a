import { builtinVersion } from "./version.js";

// The uwf-builtin entry. `--version` answers before anything heavy loads; a signal aborts the
// step (the model request and any running command end at once).
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${builtinVersion()}\n`);
} else {
  const { runAgentBinary } = await import("@united-workforce/agent-kit");
  const { builtinAgent } = await import("./builtin-agent.js");
  await runAgentBinary(builtinAgent);
}
