export { ADAPTER_NAME, claudeCodeAgent } from "./claude-agent.js";
export {
  CLAUDE_LOGIN_ENV,
  type ClaudeInvocation,
  claudeInvocation,
  INSTALL_HINT,
  PERMISSION_MODES,
} from "./invocation.js";
export { type ClaudeRun, ClaudeStreamReader, type PermissionDenial } from "./stream.js";
export { VERSION, versionText } from "./version.js";
