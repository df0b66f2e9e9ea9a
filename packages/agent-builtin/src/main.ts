import { builtinVersion } from "./version.js";

// The uwf-builtin entry, the only place that sets the exit code. `--version` answers before
// anything heavy loads. The first SIGINT/SIGTERM aborts the step (the model request and any
// running command end at once); a second one is re-raised with the default action.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`${builtinVersion()}\n`);
} else {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const { builtinAgent } = await import("./builtin-agent.js");
  process.exitCode = await builtinAgent(argv, { signal: controller.signal });
}
