export { ADAPTER_NAME, codexAgent } from "./codex-agent.js";
export {
  API_KEY_ENV,
  CODEX_INSTALL_HINT,
  type CodexModel,
  codexArgs,
  codexEnv,
  DEFAULT_SANDBOX,
  modelConfigFlags,
  SANDBOX_MODES,
  type SandboxMode,
} from "./command.js";
export {
  CodexEventReader,
  type CodexRunReport,
  type CodexTokenTotals,
  errorText,
} from "./events.js";
export { resolveCodexModel } from "./model.js";
export { codexHome, findRollout, rolloutFailureStatus, rolloutTotals } from "./rollout.js";
export { runUsage } from "./usage.js";
export { VERSION, versionText } from "./version.js";
