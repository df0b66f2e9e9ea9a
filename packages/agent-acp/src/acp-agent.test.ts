import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentContext, GuidanceInbox } from "@united-workforce/agent-kit";
import type { GuidanceNote } from "@united-workforce/protocol";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acpDefinition } from "./acp-agent.js";
import { AgentPool } from "./agent-pool.js";

// The adapter's own decisions (stop reasons, errors as answer text, modes, corrections in the
// same session) against a scripted ACP agent in plain Node. The real agents are in e2e/.

const AGENT = `
const fs = require("node:fs");
const log = (line) => fs.appendFileSync("calls.log", line + "\\n");
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
const update = (sessionId, text) =>
  send({ method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
let buffer = "";
let prompts = 0;
log("started " + process.pid);
process.stdin.on("data", (d) => {
  buffer += d;
  let i;
  while ((i = buffer.indexOf("\\n")) !== -1) {
    const m = JSON.parse(buffer.slice(0, i));
    buffer = buffer.slice(i + 1);
    log(m.method + " " + JSON.stringify(m.params));
    if (m.method === "initialize")
      send({ id: m.id, result: { protocolVersion: 1, agentInfo: { name: "scripted", version: "1.0" } } });
    if (m.method === "session/new")
      send({ id: m.id, result: { sessionId: "sess-1", modes: { currentModeId: "default", availableModes: [{ id: "default" }, { id: "acceptEdits" }] } } });
    if (m.method === "session/set_mode") send({ id: m.id, result: {} });
    if (m.method === "session/prompt") {
      prompts++;
      const text = m.params.prompt[0].text;
      if (text.includes("REFUSE")) { send({ id: m.id, result: { stopReason: "refusal" } }); continue; }
      if (text.includes("USAGELIMIT")) {
        send({ id: m.id, error: { code: -32603, message: "Internal error", data: { message: "You've hit your usage limit. Try again in 5 minutes.", codexErrorInfo: "usageLimitExceeded" } } });
        continue;
      }
      if (text.includes("APIERROR")) update(m.params.sessionId, '{"error":{"message":"scripted failure","code":400}}');
      else if (text.includes("CODEX429")) update(m.params.sessionId, "exceeded retry limit, last status: 429 Too Many Requests\\n\\n");
      else if (text.includes("CODEX401")) update(m.params.sessionId, "unexpected status 401 Unauthorized: invalid key\\n\\n");
      else update(m.params.sessionId, "answer " + prompts);
      send({ id: m.id, result: { stopReason: "end_turn", usage: { inputTokens: 10 * prompts, outputTokens: prompts } } });
    }
  }
});
`;

let temp: TempHome;
let pool: AgentPool;
let progress: string[];
beforeEach(() => {
  temp = tempHome();
  pool = new AgentPool();
  progress = [];
  writeFileSync(join(temp.home, "agent.cjs"), AGENT);
});
afterEach(async () => {
  await pool.closeAll();
  temp.cleanup();
});

/**
 * A `thread steer` inbox whose notes arrive in batches: each `take` hands over the next one (a
 * batch stands for the notes steered while the turn before the take ran).
 */
function steered(...batches: string[][]): GuidanceInbox & { takenAfter: number[] } {
  let rev = 0;
  const takenAfter: number[] = [];
  const next = (afterTurn: number): GuidanceNote[] => {
    takenAfter.push(afterTurn);
    return (batches.shift() ?? []).map((text) => ({
      text,
      at: "2026-12-06T18:00:00Z",
      rev: ++rev,
    }));
  };
  return {
    takenAfter,
    watch: () => {},
    take: async (afterTurn) => next(afterTurn),
    takeWaiting: next,
  };
}

function context(
  prompt: string,
  options: Record<string, string> = {},
  guidance: GuidanceInbox = steered(),
): AgentContext {
  return {
    agent: "uwf-acp",
    cwd: temp.home,
    home: temp.home,
    env: { PATH: process.env.PATH },
    options,
    passthrough: [process.execPath, join(temp.home, "agent.cjs")],
    prompt,
    resumeSession: null,
    progress: (line: string) => progress.push(line),
    guidance,
  } as unknown as AgentContext;
}

const calls = () => readFileSync(join(temp.home, "calls.log"), "utf8").trim().split("\n");
const definition = () => acpDefinition({ name: "uwf-acp", pool });

describe("the uwf-acp definition", () => {
  it("sends a correction as another prompt in the same session of the same process", async () => {
    const ctx = context("first");
    const first = await definition().run(ctx);
    expect(first.text).toBe("answer 1");
    expect(first.detail).toMatchObject({
      sessionId: "sess-1",
      acp: { agentInfo: { name: "scripted", version: "1.0" }, resumed: false, permissions: [] },
    });
    const second = await definition().continue!(ctx, first.session, "fix it");
    expect(second.text).toBe("answer 2");
    const log = calls();
    expect(log.filter((line) => line.startsWith("started"))).toHaveLength(1);
    expect(log.filter((line) => line.startsWith("session/prompt"))).toEqual([
      `session/prompt {"sessionId":"sess-1","prompt":[{"type":"text","text":"first"}]}`,
      `session/prompt {"sessionId":"sess-1","prompt":[{"type":"text","text":"fix it"}]}`,
    ]);
  });

  it("sends the notes steered during a turn as a follow-up prompt, and adds up the turns", async () => {
    const guidance = steered(["Keep the API.", "Add a test."]);
    const result = await definition().run(context("first", {}, guidance));
    expect(result.text).toBe("answer 2");
    expect(calls().filter((line) => line.startsWith("session/prompt"))).toEqual([
      `session/prompt {"sessionId":"sess-1","prompt":[{"type":"text","text":"first"}]}`,
      `session/prompt {"sessionId":"sess-1","prompt":[{"type":"text","text":${JSON.stringify(
        "## Guidance from a human\n\nKeep the API.\n\n## Guidance from a human\n\nAdd a test.",
      )}}]}`,
    ]);
    // The notes came after the first turn; the inbox is asked again after the follow-up.
    expect(guidance.takenAfter).toEqual([1, 2]);
    expect(result.usage).toMatchObject({ inputTokens: 30, outputTokens: 3, turns: 2 });
    expect(result.detail).toMatchObject({
      turns: [{ text: "answer 1" }, { text: "answer 2" }],
    });
  });

  it("sends one prompt when no note arrives, and at most eight follow-ups a step", async () => {
    const quiet = await definition().run(context("first"));
    expect(quiet.usage).toMatchObject({ inputTokens: 10, outputTokens: 1, turns: 1 });
    expect(calls().filter((line) => line.startsWith("session/prompt"))).toHaveLength(1);

    const endless = steered(...Array.from({ length: 20 }, (_, i) => [`note ${i}`]));
    const result = await definition().run(context("again", {}, endless));
    expect(calls().filter((line) => line.startsWith("session/prompt"))).toHaveLength(1 + 1 + 8);
    expect(endless.takenAfter).toHaveLength(8);
    expect(result.text).toBe("answer 9");
  });

  it("fails the step when the agent stops the turn other than with end_turn", async () => {
    await expect(definition().run(context("REFUSE"))).rejects.toMatchObject({
      code: "AGENT_FAILED",
      message: 'node stopped the turn with "refusal" instead of answering',
    });
  });

  it("fails the step when the answer is an API error dressed as text (codex-acp)", async () => {
    await expect(definition().run(context("APIERROR"))).rejects.toMatchObject({
      code: "AGENT_FAILED",
      message: "node answered with an API error: scripted failure",
    });
  });

  it("takes codex's failure line for an answer as a failure: transient for a rate limit", async () => {
    await expect(definition().run(context("CODEX429"))).rejects.toMatchObject({
      name: "TransientAgentError",
      exitCode: 75,
      message: expect.stringContaining(
        "node answered with an API error: exceeded retry limit, last status: 429 Too Many Requests",
      ),
    });
    await expect(definition().run(context("CODEX401"))).rejects.toMatchObject({
      code: "AGENT_FAILED",
      message: "node answered with an API error: unexpected status 401 Unauthorized: invalid key",
    });
  });

  it("reads the reason an agent put in an error's data: codex-acp's usage limit is transient", async () => {
    const failure = definition().run(context("USAGELIMIT"));
    await expect(failure).rejects.toMatchObject({ name: "TransientAgentError", exitCode: 75 });
    await expect(failure).rejects.toHaveProperty("retryAfterMs", 300_000);
    await expect(failure).rejects.toThrow(
      "Internal error (You've hit your usage limit. Try again in 5 minutes.; usageLimitExceeded)",
    );
  });

  it("sets the session mode asked for, and names the offered ones for an unknown mode", async () => {
    await definition().run(context("go", { mode: "acceptEdits" }));
    expect(calls()).toContain(`session/set_mode {"sessionId":"sess-1","modeId":"acceptEdits"}`);
    expect(progress).toContain("session mode acceptEdits");
    await expect(definition().run(context("go", { mode: "yolo" }))).rejects.toMatchObject({
      code: "USAGE",
      message: 'node offers no session mode "yolo"; it offers: default, acceptEdits',
    });
  });

  it("refuses an unknown permission policy", async () => {
    await expect(definition().run(context("go", { permission: "maybe" }))).rejects.toMatchObject({
      code: "USAGE",
      message: '--permission must be allow or deny, got "maybe"',
    });
  });

  it("says which binary is missing and how to install it", async () => {
    const ctx = context("go", { preset: "hermes" });
    (ctx as { passthrough: string[] }).passthrough = [];
    await expect(definition().run(ctx)).rejects.toMatchObject({
      code: "AGENT_FAILED",
      message: '"hermes" not found in PATH',
      hint: expect.stringContaining("pip install hermes-agent"),
    });
  });
});
