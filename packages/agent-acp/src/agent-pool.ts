import type { AcpAgent } from "@united-workforce/agent-kit";

/** The agents a process started; its entry closes them once the step is stored. */
export class AgentPool {
  private readonly agents = new Set<AcpAgent>();

  add(agent: AcpAgent): void {
    this.agents.add(agent);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.agents].map((agent) => agent.close()));
    this.agents.clear();
  }
}
