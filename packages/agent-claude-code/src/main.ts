import { claudeCodeAgent } from "./claude-agent.js";
import { versionText } from "./version.js";

// The uwf-claude-code entry, the only place that sets the exit code. The first SIGINT/SIGTERM
// aborts the step, which ends claude's whole process group; a second one is re-raised with the
// default action, so the process ends at once and its parent sees the signal.
const argv = process.argv.slice(2);
if (argv[0] === "--version" || argv[0] === "-V") {
  process.stdout.write(await versionText(process.env));
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
  process.exitCode = await claudeCodeAgent(argv, { signal: controller.signal });
}
