import { runAgentBinary } from "@united-workforce/agent-kit/entry";
import { builtinAgent } from "./builtin-agent.js";
import { builtinVersion } from "./version.js";

// The uwf-builtin entry. A signal aborts the step (the model request and any running command
// end at once). The definition is light: the step's code loads only with a step, so
// `--version` and `--help` answer before anything heavy loads. No top-level await: the bundle
// is CommonJS so that its compiled code can be cached (DESIGN §14).
void runAgentBinary(builtinAgent, builtinVersion);
