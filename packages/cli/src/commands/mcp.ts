import { docsUrl } from "@united-workforce/util";
import { defineCommand } from "./command.js";

export default defineCommand({
  path: ["mcp"],
  interruptible: true,
  summary:
    "serve uwf's workflows and threads to an agent over the Model Context Protocol (stdio), until the client disconnects",
  description: `For an MCP client (Claude Code, Codex, an IDE) to start as a server: it speaks MCP on stdin and stdout, and notes go to stderr. Tools: workflow_list, workflow_show, thread_start, thread_exec, thread_show, thread_read, thread_list and thread_answer, each returning what the same command prints with --format json. thread_exec returns at once and runs the steps in this process; the session ending (stdin closed, SIGINT or SIGTERM) stops those runs as Ctrl-C stops \`uwf thread exec\`: the lease is released and every finished step kept. Threads and workflows are those of this UWF_HOME and store; threads work in the directory the server was started in. How to add it to a client: ${docsUrl("mcp.md")}`,
  examples: ["claude mcp add uwf -- uwf mcp", "codex mcp add uwf -- uwf mcp"],
  async run(ctx) {
    const { serveMcp } = await import("../mcp/server.js");
    const summary = await serveMcp(ctx, process.stdin);
    // stdout carried the protocol: the summary goes to the log only, nothing more is printed.
    return {
      document: summary,
      text: (d) => `uwf mcp: ${d.calls} tool calls, ${d.runs} runs`,
      printed: true,
    };
  },
});
