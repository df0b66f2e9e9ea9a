import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import { GEN_AI, GEN_AI_OPERATION } from "./semconv.js";

describe("the GenAI names uwf's spans use", () => {
  it("are the semantic conventions' own", () => {
    expect(GEN_AI).toEqual({
      operationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
      workflowName: incubating.ATTR_GEN_AI_WORKFLOW_NAME,
      agentName: incubating.ATTR_GEN_AI_AGENT_NAME,
      conversationId: incubating.ATTR_GEN_AI_CONVERSATION_ID,
      requestModel: incubating.ATTR_GEN_AI_REQUEST_MODEL,
      responseModel: incubating.ATTR_GEN_AI_RESPONSE_MODEL,
      inputTokens: incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadInputTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationInputTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      toolName: incubating.ATTR_GEN_AI_TOOL_NAME,
      toolType: incubating.ATTR_GEN_AI_TOOL_TYPE,
      errorType: incubating.ATTR_ERROR_TYPE,
    });
    expect(GEN_AI_OPERATION).toEqual({
      invokeWorkflow: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
      invokeAgent: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      chat: incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
  });
});
