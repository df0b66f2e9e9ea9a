import type { UwfEvent } from "@united-workforce/protocol";

type Takeover = Extract<UwfEvent, { event: "thread.takeover" }>;

/**
 * The note every command prints on stderr when it took over a lock a gone process left behind
 * (an exec killed, or ended by a second Ctrl-C), so a lock never changes hands silently.
 */
export function takeoverNote(event: Takeover): string {
  const agent = event.agentStopped ? "; the agent it left running was stopped" : "";
  return `note: took over the lock of thread ${event.thread}: its holder, ${event.command} (pid ${event.holder} on ${event.host}), is gone${agent}\n`;
}
