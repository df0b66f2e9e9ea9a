import { createAgent } from "@united-workforce/agent-kit";
import { AgentPool, acpDefinition } from "./acp-agent.js";
import { adapterVersion } from "./version.js";

/**
 * A binary's entry (`uwf-acp`, `uwf-hermes`), the only place that sets the exit code. The first
 * SIGINT/SIGTERM aborts the step: the agent's turn is cancelled and its process group ended. A
 * second one is re-raised with the default action.
 */
export async function runBinary(name: string, defaultPreset?: string): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    process.stdout.write(`${adapterVersion()}\n`);
    return;
  }
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

  const pool = new AgentPool();
  try {
    const main = createAgent(
      acpDefinition({ name, pool, ...(defaultPreset ? { defaultPreset } : {}) }),
    );
    process.exitCode = await main(argv, { signal: controller.signal });
  } finally {
    // The agent stays up between the run and its corrections; it ends once the step is stored.
    await pool.closeAll();
  }
}
