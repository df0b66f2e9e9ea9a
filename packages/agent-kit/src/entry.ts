// What an adapter's entry and its definition need, and nothing of the step. An adapter that
// imports these names from `@united-workforce/agent-kit/entry`, and the rest of the kit only in
// modules its `run` loads with `import()`, starts without initialising the kit: bundled,
// importing anything from the package index initialises every module the index re-exports
// (DESIGN §14). The package index re-exports this module.

export { parseFlatYaml, stringifyFlatYaml } from "./prompt/flat-yaml.js";
export { createAgent } from "./runner/agent-main.js";
export type { AgentOptionSpec, AgentOptionValues } from "./runner/argv.js";
export { runAgentBinary } from "./runner/binary.js";
export type { DeliveredGuidance, GuidanceInbox } from "./runner/guidance.js";
export { storeBackends } from "./runner/store-backends.js";
export {
  type AgentContext,
  type AgentDefinition,
  type AgentDetail,
  AgentExit,
  type AgentIo,
  type AgentMain,
  type AgentRunResult,
} from "./runner/types.js";
