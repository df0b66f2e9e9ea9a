// The parts of the MCP SDK `uwf mcp` uses, in one module: the bundle keeps it (with zod) in a
// chunk of its own (scripts/bundle.mjs), read only by `uwf mcp`, so no other start reads it.
export type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
export {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Task,
} from "@modelcontextprotocol/sdk/types.js";
