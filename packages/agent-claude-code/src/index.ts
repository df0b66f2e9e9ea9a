export { ADAPTER_NAME, claudeCodeAgent, INSTALL_HINT } from "./claude-agent.js";
export {
  CLAUDE_LOGIN_ENV,
  type ClaudeInvocation,
  claudeInvocation,
  PERMISSION_MODES,
} from "./invocation.js";
export { type ClaudeRun, ClaudeStreamReader, type PermissionDenial } from "./stream.js";
export { VERSION, versionText } from "./version.js";
