import { ExitCode } from "@united-workforce/protocol";
import { codexAgent } from "./codex-agent.js";
import { versionText, wantsVersion } from "./version.js";

// The uwf-codex entry, the only place that sets the exit code. The first SIGINT/SIGTERM aborts
// the step, which ends codex's whole process group; a second one is re-raised with the default
// action, so the process ends at once and its parent sees the signal.
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

const argv = process.argv.slice(2);
if (wantsVersion(argv)) {
  const version = await versionText(argv, process.env, process.cwd());
  process.stdout.write(version.text);
  process.exitCode = version.ok ? ExitCode.ok : ExitCode.error;
} else {
  process.exitCode = await codexAgent(argv, { signal: controller.signal });
}
