import { mkdirSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentContext, SessionRecord } from "@united-workforce/agent-kit";
import {
  agentCliPath,
  type FakeLlm,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { acpDefinition } from "../src/acp-agent.js";
import { AgentPool } from "../src/agent-pool.js";

// session/load against the real gemini --acp, driven through the adapter's own run() so that
// the test can backdate Gemini's chat file in between: Gemini 0.61 cannot load a session in the
// minute it was made (that fallback is checked in gemini.e2e.test.ts).

const GEMINI = agentCliPath("gemini");

let temp: TempHome;
let fake: FakeLlm;
let work: string;

beforeAll(async () => {
  temp = tempHome();
  work = join(temp.home, "work");
  mkdirSync(work);
  mkdirSync(join(temp.home, "tmp"));
  fake = await startFakeLlm({
    script: { steps: [{ text: "first answer" }, { text: "second answer" }] },
  });
  writeFileSync(
    join(temp.home, "config.yaml"),
    stringify({
      providers: { fake: { baseUrl: fake.url, apiKey: "fake-key" } },
      models: { flash: { provider: "fake", name: "gemini-2.5-flash" } },
    }),
  );
});
afterAll(async () => {
  await fake.close();
  temp.cleanup();
});

/** One step's run, as agent-kit would call it, with `resume` as the role's previous session. */
async function runStep(
  prompt: string,
  resume: string | null,
): Promise<{ text: string; sessionId: string; resumed: boolean; progress: string[] }> {
  const pool = new AgentPool();
  const progress: string[] = [];
  const resumeSession: SessionRecord | null = resume
    ? { adapter: "uwf-acp", sessionId: resume, cwd: work, model: "gemini-2.5-flash" }
    : null;
  const ctx = {
    agent: "uwf-acp",
    cwd: work,
    home: temp.home,
    env: { PATH: process.env.PATH, HOME: temp.home, TMPDIR: join(temp.home, "tmp") },
    options: { preset: "gemini", bin: GEMINI, model: "flash" },
    passthrough: [],
    prompt,
    resumeSession,
    progress: (line: string) => progress.push(line),
    // No `thread steer` notes: each prompt is one turn.
    guidance: { watch: () => {}, take: async () => [], takeWaiting: () => [] },
  } as unknown as AgentContext;
  try {
    const result = await acpDefinition({ name: "uwf-acp", pool }).run(ctx);
    const detail = result.detail as { sessionId: string; acp: { resumed: boolean } };
    return {
      text: result.text,
      sessionId: detail.sessionId,
      resumed: detail.acp.resumed,
      progress,
    };
  } finally {
    await pool.closeAll();
  }
}

/** Gemini names a chat file by the minute it started; make it look older. */
function backdateChat(sessionId: string): void {
  const tmp = join(temp.home, "acp/gemini/gemini-home/.gemini/tmp");
  for (const project of readdirSync(tmp)) {
    const chats = join(tmp, project, "chats");
    let names: string[] = [];
    try {
      names = readdirSync(chats);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name.startsWith("session-") && name.endsWith(`-${sessionId.slice(0, 8)}.jsonl`)) {
        renameSync(
          join(chats, name),
          join(chats, `session-2000-01-01T00-00-${sessionId.slice(0, 8)}.jsonl`),
        );
        return;
      }
    }
  }
  throw new Error(`no chat file for session ${sessionId} under ${tmp}`);
}

function lastPromptContents(): Array<{ role: string }> {
  const requests = fake
    .requests()
    .filter((r) => r.url.includes(":streamGenerateContent") && r.served.reply !== "json");
  return (requests.at(-1)!.body as { contents: Array<{ role: string }> }).contents;
}

describe("session/load with gemini --acp", () => {
  it("resumes a session from an earlier minute: history replayed, not taken for the answer", async () => {
    const first = await runStep("first question", null);
    expect(first).toMatchObject({ text: "first answer", resumed: false });

    // A session from an earlier minute loads: its history is replayed (and not taken for the
    // answer), and the next request carries it.
    backdateChat(first.sessionId);
    const resumed = await runStep("second question", first.sessionId);
    expect(resumed.progress).toContain(`resumed session ${first.sessionId}`);
    expect(resumed).toMatchObject({
      sessionId: first.sessionId,
      resumed: true,
      text: "second answer",
    });
    const contents = lastPromptContents();
    expect(contents.map((c) => c.role)).toEqual(["user", "model", "user"]);
  }, 180_000);
});
