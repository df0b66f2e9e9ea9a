import { mockAgent } from "./mock-agent.js";

// The uwf-mock entry, the only place that sets the exit code. The first SIGINT/SIGTERM aborts
// the step (a scripted delay ends at once); a second exits.
const controller = new AbortController();
let interrupted = false;
const onSignal = (): void => {
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

process.exitCode = await mockAgent(process.argv.slice(2), { signal: controller.signal });
