export {
  ACP_PROTOCOL_VERSION,
  AcpClient,
  type AcpClientOptions,
  type AcpEvent,
  type AcpSession,
  type AgentHello,
  PromptCancelledError,
  type PromptOutcome,
  type SessionModes,
} from "./acp/acp-client.js";
export { AgentProcess, type AgentProcessOptions } from "./acp/agent-process.js";
export {
  JsonRpcConnection,
  RPC_METHOD_NOT_FOUND,
  RpcClosedError,
  RpcError,
} from "./acp/json-rpc.js";
export {
  choosePermission,
  PERMISSION_POLICIES,
  type PermissionDecision,
  type PermissionPolicy,
} from "./acp/permission.js";
export { type AgentNotice, PromptTurn, type ToolCallEvent, tokensOf } from "./acp/prompt-turn.js";
export { type AcpAgent, explainFailure, startAcpAgent } from "./acp/start.js";
export { BASE_ENV_NAMES, type MinimalEnvOptions, minimalEnv } from "./cli/env.js";
export {
  type InvalidJsonLine,
  type JsonLine,
  jsonLineHandler,
  parseJsonLine,
  readJsonLines,
} from "./cli/json-lines.js";
export {
  type AgentCliOutcome,
  type AgentCliRun,
  findOnPath,
  spawnAgentCli,
} from "./cli/spawn.js";
export {
  addPartialUsage,
  anthropicUsage,
  cleanUsage,
  geminiUsage,
  openaiUsage,
  usageNumber,
} from "./cli/usage.js";
export {
  BODY_EXCERPT_CHARS,
  collectHistory,
  DEFAULT_HISTORY_QUOTA,
  type History,
  type HistoryEntry,
  renderHistoryEntry,
} from "./context/history.js";
export { loadThreadContext, type ThreadContext } from "./context/load-context.js";
// The entry's names (createAgent, runAgentBinary, AgentExit, the definition's types).
export * from "./entry.js";
export { buildCorrection } from "./extract/correction.js";
export {
  checkCandidate,
  type Extraction,
  extractOutput,
  pickSchemaFields,
  type Validation,
  type Validator,
} from "./extract/extract.js";
export {
  DEFAULT_EXTRACT_TIMEOUT_MS,
  extractWithModel,
  type ModelEndpoint,
  type ModelExtraction,
} from "./extract/model-extract.js";
export { isSuspendStatus, SUSPEND_OUTPUT_SCHEMA } from "./extract/suspend.js";
export {
  type AssistantMessage,
  abortableSleep,
  backoffDelay,
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatMessage,
  chatCompletion,
  DEFAULT_RETRY,
  type ModelFailureKind,
  ModelRequestError,
  type RetryNotice,
  type RetryPolicy,
  requestedDelay,
  type Sleep,
  type ToolCall,
  type ToolDefinition,
} from "./openai/index.js";
export { composePrompt, type PromptParts } from "./prompt/compose.js";
export { buildOutputFormatInstruction, SCOPE_SENTENCE } from "./prompt/output-format.js";
export type { AttemptRecord } from "./runner/attempts.js";
export { guidanceMessage } from "./runner/guidance.js";
export {
  agentFailure,
  classifyFailure,
  type FailureEvidence,
  isTransientStatus,
  TransientAgentError,
  type TransientVerdict,
  transientExitFor,
  waitInText,
} from "./runner/transient.js";
export { sumUsage } from "./runner/usage.js";
export {
  type ResumableSession,
  readSessions,
  resumableSession,
  type SessionMap,
  type SessionRecord,
  sessionToResume,
  type ToolCallRecord,
  type TurnRecord,
} from "./session/sessions.js";
