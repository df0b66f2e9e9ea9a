export { builtinAgent } from "./builtin-agent.js";
export {
  type Conversation,
  type ConversationDeps,
  type ConversationResult,
  converse,
} from "./conversation.js";
export { LIMIT_OPTIONS, type Limits, readLimits } from "./limits.js";
export { type Endpoint, resolveEndpoint } from "./model.js";
export { systemPrompt } from "./system-prompt.js";
export { commandEnvironment, runCommandTool } from "./tools/run-command.js";
export { ToolError } from "./tools/tool-error.js";
export {
  describeCall,
  runTool,
  TOOL_NAMES,
  type ToolEnvironment,
  toolDefinitions,
} from "./tools/tools.js";
export { Workspace } from "./tools/workspace.js";
