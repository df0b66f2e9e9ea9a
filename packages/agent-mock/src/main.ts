import { mockAgent } from "./mock-agent.js";

// The uwf-mock entry, the only place that sets the exit code. The first SIGINT/SIGTERM aborts
// the step (a scripted delay ends at once); a second one is re-raised with the default action,
// so the process ends at once and its parent sees the signal.
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

process.exitCode = await mockAgent(process.argv.slice(2), { signal: controller.signal });
