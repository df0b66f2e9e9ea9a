export { acpDefinition } from "./acp-agent.js";
export { AgentPool } from "./agent-pool.js";
export { type LaunchPlan, planLaunch } from "./launch.js";
export { runBinary } from "./main.js";
export { type ModelEndpoint, PRESET_NAMES, PRESETS, type Preset } from "./presets.js";
