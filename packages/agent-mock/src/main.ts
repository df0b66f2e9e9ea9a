import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { mockAgent } from "./mock-agent.js";
import { mockVersion } from "./version.js";

// The uwf-mock entry: a signal aborts the step (a scripted delay ends at once).
void runAgentBinary(mockAgent, mockVersion);
