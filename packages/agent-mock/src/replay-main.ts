import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { replayAgent } from "./replay-agent.js";
import { mockVersion } from "./version.js";

// The uwf-replay entry: answers steps from recorded threads (replay-agent.ts).
void runAgentBinary(replayAgent, mockVersion);
