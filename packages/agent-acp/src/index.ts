export { AgentPool, acpDefinition } from "./acp-agent.js";
export { type LaunchPlan, planLaunch } from "./launch.js";
export { runBinary } from "./main.js";
export { type ModelEndpoint, PRESET_NAMES, PRESETS, type Preset } from "./presets.js";
