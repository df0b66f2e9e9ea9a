#!/usr/bin/env node
// Drives `uwf mcp` as an MCP client does, with no SDK and no model: newline-delimited JSON-RPC
// over the server's stdin and stdout. It lists the tools, starts a thread of examples/hello.yaml,
// runs it with the scripted mock agent (wait: true) and prints how it ended.
//
//   node examples/mcp/drive.mjs            # from the repository's root, with `uwf` on PATH
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const server = spawn("uwf", ["mcp"], { stdio: ["pipe", "pipe", "inherit"] });
const pending = new Map();
createInterface({ input: server.stdout }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id !== undefined && pending.has(message.id)) {
    pending.get(message.id)(message);
    pending.delete(message.id);
  }
});
let next = 1;
function request(method, params) {
  const id = next++;
  server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return new Promise((resolve, reject) =>
    pending.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result))),
  );
}
async function call(name, args) {
  const result = await request("tools/call", { name, arguments: args });
  if (result.isError) throw new Error(result.content.map((c) => c.text).join("\n"));
  return result.structuredContent;
}

await request("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "uwf-example", version: "1.0.0" },
});
server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

const { tools } = await request("tools/list", {});
console.log(`tools: ${tools.map((t) => t.name).join(", ")}`);
const started = await call("thread_start", {
  workflow: "examples/hello.yaml",
  prompt: "Greet Ada, who joins today.",
});
console.log(`started ${started.thread}`);
const ran = await call("thread_exec", {
  thread: started.thread,
  agent: "uwf-mock --scenario examples/scenarios/hello.yaml",
  wait: true,
});
console.log(`${ran.thread}: ${ran.status} after ${ran.steps.length} step(s)`);
server.stdin.end();
