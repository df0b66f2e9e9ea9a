import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isProcessGone, waitUntilGone } from "@united-workforce/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { explainFailure, startAcpAgent } from "./start.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A tiny ACP agent in plain Node: answers `initialize`, then does what `behaviour` says when
 * `session/new` arrives.
 */
function writeAgent(behaviour: string, prelude = ""): string {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "uwf-acp-agent-")));
  const file = join(dir, "agent.cjs");
  writeFileSync(
    file,
    `const { spawn } = require("node:child_process");
const fs = require("node:fs");
${prelude}
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
let buffer = "";
process.stdin.on("data", (d) => {
  buffer += d;
  let i;
  while ((i = buffer.indexOf("\\n")) !== -1) {
    const m = JSON.parse(buffer.slice(0, i));
    buffer = buffer.slice(i + 1);
    if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {} } });
    if (m.method === "session/new") { ${behaviour} }
  }
});
`,
  );
  return file;
}

function start(file: string) {
  return startAcpAgent({
    command: process.execPath,
    args: [file],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "" },
    clientInfo: { name: "test", version: "0" },
    permission: "allow",
  });
}

describe("startAcpAgent", () => {
  it("explains an agent that dies mid-request with its exit code and stderr", async () => {
    const agent = await start(
      writeAgent(`process.stderr.write("Error: quota exhausted\\n"); process.exit(3);`),
    );
    const error = await agent.client.newSession(dir).catch((e: unknown) => e);
    const explained = await explainFailure(agent.process, error);
    expect(explained.message).toMatch(
      /^session\/new got no answer: the agent (exited with code 3|closed its output \(exited with code 3\))/,
    );
    expect(explained.message).toContain("its stderr ended with:\n  Error: quota exhausted");
    await agent.close();
  });

  it("ends the whole process group of an agent that ignores EOF and SIGTERM", async () => {
    const file = writeAgent(
      `
      const child = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });
      fs.writeFileSync(${JSON.stringify("PIDS")}, String(child.pid));
      send({ id: m.id, result: { sessionId: "s1" } });`,
      // The agent itself ignores SIGTERM and the end of its stdin.
      `process.on("SIGTERM", () => {}); setInterval(() => {}, 1000);`,
    );
    const agent = await start(file);
    await agent.client.newSession(dir);
    const childPid = Number(readFileSync(join(dir, "PIDS"), "utf8"));
    const agentPid = agent.process.pid!;
    expect(isProcessGone(childPid)).toBe(false);
    await agent.close();
    expect(await waitUntilGone(agentPid, 5_000)).toBe(true);
    expect(await waitUntilGone(childPid, 5_000)).toBe(true);
  });

  it("says so when the agent command does not exist", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "uwf-acp-agent-")));
    await expect(
      startAcpAgent({
        command: "no-such-acp-agent",
        args: [],
        cwd: dir,
        env: { PATH: dir },
        clientInfo: { name: "test", version: "0" },
        permission: "allow",
      }),
    ).rejects.toThrow(/cannot start "no-such-acp-agent": spawn no-such-acp-agent ENOENT/);
  });
});
