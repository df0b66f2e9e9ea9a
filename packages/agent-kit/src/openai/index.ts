export {
  type AssistantMessage,
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatMessage,
  chatCompletion,
  type RetryNotice,
  type ToolCall,
  type ToolDefinition,
} from "./chat-completion.js";
export { type ModelFailureKind, ModelRequestError } from "./errors.js";
export {
  abortableSleep,
  backoffDelay,
  DEFAULT_RETRY,
  type RetryPolicy,
  requestedDelay,
  type Sleep,
} from "./retry.js";
