/**
 * The OpenTelemetry GenAI semantic-convention names uwf's spans use. They are incubating, and
 * OpenTelemetry advises copying incubating names rather than importing their module at run
 * time; `semconv.test.ts` checks each against `@opentelemetry/semantic-conventions/incubating`.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  workflowName: "gen_ai.workflow.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
} as const;

/** Values of `gen_ai.operation.name`. */
export const GEN_AI_OPERATION = {
  invokeWorkflow: "invoke_workflow",
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;
