import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { mockAgent } from "./mock-agent.js";

// The uwf-mock entry: a signal aborts the step (a scripted delay ends at once). A scripted step
// leaves nothing running, so the process exits as soon as it is done.
void runAgentBinary(mockAgent, { exitWhenDone: true });
