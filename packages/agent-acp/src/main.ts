import { createAgent, runAgentBinary } from "@united-workforce/agent-kit/entry";
import { acpDefinition } from "./acp-agent.js";
import { AgentPool } from "./agent-pool.js";
import { adapterVersion } from "./version.js";

/**
 * A binary's entry (`uwf-acp`, `uwf-hermes`). A signal aborts the step: the agent's turn is
 * cancelled and its process group ended.
 */
export async function runBinary(name: string, defaultPreset?: string): Promise<void> {
  const pool = new AgentPool();
  try {
    await runAgentBinary(
      createAgent(acpDefinition({ name, pool, ...(defaultPreset ? { defaultPreset } : {}) })),
      adapterVersion,
    );
  } finally {
    // The agent stays up between the run and its corrections; it ends once the step is stored.
    await pool.closeAll();
  }
}
