import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StepPayload } from "@united-workforce/protocol";
import {
  agentCliPath,
  type FakeLlm,
  openHomeStore,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AcpHome, acpHome, requireBuilt, UWF_ACP_BIN } from "./helpers.js";

// The real Gemini CLI 0.61.0 as an ACP agent (`gemini --acp`), its model replaced by the fake.
// Each gemini run takes seconds here, so there are few of them and long timeouts.

const GEMINI = agentCliPath("gemini");
const answer = (status: string, summary: string, body: string) =>
  `---\n$status: ${status}\nsummary: ${summary}\n---\n${body}`;

const WORKFLOW = {
  name: "acp-demo",
  roles: {
    writer: {
      goal: "Write what you are asked to write.",
      frontmatter: {
        type: "object",
        properties: { $status: { enum: ["again", "done"] }, summary: { type: "string" } },
        required: ["$status", "summary"],
      },
    },
  },
  graph: {
    $START: {
      new: {
        role: "writer",
        prompt: "[[scenario:first]] Write hello.txt in your working directory.",
      },
      resume: { role: "writer", prompt: "Carry on." },
    },
    writer: {
      again: { role: "writer", prompt: "[[scenario:second]] Check your work and finish." },
      done: { role: "$END", prompt: "Finished." },
    },
  },
};

let temp: TempHome;
let fake: FakeLlm;
let env: AcpHome;

beforeAll(() => requireBuilt());
beforeEach(() => {
  temp = tempHome();
});
afterEach(async () => {
  await fake?.close();
  temp.cleanup();
});

async function setup(
  script: Parameters<typeof startFakeLlm>[0],
  timeoutSeconds = 60,
): Promise<void> {
  fake = await startFakeLlm(script);
  env = await acpHome(temp, {
    workflow: WORKFLOW,
    config: {
      providers: { fake: { baseUrl: fake.url, apiKey: "fake-gemini-key" } },
      models: { flash: { provider: "fake", name: "gemini-2.5-flash" } },
      agents: {
        gemini: {
          command: UWF_ACP_BIN,
          args: ["--preset", "gemini", "--bin", GEMINI, "--model", "flash"],
          timeoutSeconds,
        },
      },
    },
  });
}

async function startThread(task: string): Promise<string> {
  const started = await env.uwf(["thread", "start", "acp-demo", "-p", task]);
  expect(started.code, started.stderr).toBe(0);
  return started.stdout.trim();
}

function promptRequests(): Array<{
  body: { contents: Array<{ role: string; parts: unknown[] }> };
}> {
  return fake
    .requests()
    .filter((r) => r.url.includes(":streamGenerateContent") && r.served.reply !== "json") as never;
}

describe("uwf-acp --preset gemini against the real gemini --acp", () => {
  it("runs a role twice: writes a file through an allowed permission request, then finishes", async () => {
    const target = () => join(env.work, "hello.txt");
    await setup({
      script: {
        scenarios: {
          first: [
            {
              text: "I'll write the file.",
              tool: { write_file: { file_path: "hello.txt", content: "hi from gemini\n" } },
            },
            { text: answer("again", "wrote hello.txt", "The file is written.") },
            // A loaded session carries the first visit, so it is asked for its third turn.
            { text: answer("done", "checked hello.txt", "All good.") },
          ],
          second: [{ text: answer("done", "checked hello.txt", "All good.") }],
        },
      },
    });
    const thread = await startThread("Say hello in a file.");
    const exec = await env.uwf(["thread", "exec", thread, "-c", "2", "--agent", "gemini"], 120_000);
    expect(exec.code, exec.stderr).toBe(0);
    expect(readFileSync(target(), "utf8")).toBe("hi from gemini\n");
    expect(exec.stderr).toMatch(/uwf-acp: started gemini \(gemini-cli 0\.61\.0\)/);
    expect(exec.stderr).toMatch(
      /uwf-acp: permission ".*hello\.txt.*": allowed by policy allow \(proceed_once\)/,
    );

    const shown = JSON.parse(
      (await env.uwf(["thread", "show", thread, "--format", "json"])).stdout,
    );
    expect(shown).toMatchObject({ status: "completed", steps: 2 });

    const store = await openHomeStore(env.home);
    const list = JSON.parse((await env.uwf(["step", "list", thread, "--format", "json"])).stdout);
    const [first, second] = list.steps as Array<{ hash: string; status: string }>;
    expect([first!.status, second!.status]).toEqual(["again", "done"]);
    const step = await store.cas.getPayload<StepPayload>(first!.hash, "step");
    expect(step.agent).toBe("uwf-acp");
    expect(step.usage).toMatchObject({ inputTokens: 20, outputTokens: 10, costUsd: null });
    const detail = (await store.cas.get(step.detail)).payload as Record<string, unknown>;
    expect(detail).toMatchObject({
      adapter: "uwf-acp",
      model: "gemini-2.5-flash",
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      acp: {
        agent: "gemini",
        agentInfo: { name: "gemini-cli", version: "0.61.0" },
        resumed: false,
        permissions: [expect.objectContaining({ decision: "allowed", optionId: "proceed_once" })],
      },
    });
    // Each turn is its own `turn` node, linked from the detail.
    const turns = await Promise.all(
      (detail.turns as string[]).map(
        async (hash) =>
          (await store.cas.get(hash)).payload as {
            text: string;
            toolCalls: Array<{ name: string; output?: string }>;
          },
      ),
    );
    expect(turns).toHaveLength(2);
    expect(turns[0]!.text).toBe("I'll write the file.");
    expect(turns[0]!.toolCalls).toHaveLength(1);
    expect(turns[1]!.text).toBe(answer("again", "wrote hello.txt", "The file is written."));

    // The key reached the fake as Gemini sends it; the second request carried the tool result.
    const requests = promptRequests();
    expect(requests[0]!.body.contents).toHaveLength(1);
    expect(JSON.stringify(requests[1]!.body.contents)).toContain("functionResponse");
    expect(fake.requests()[0]!.headers["x-goog-api-key"]).toBe("fake-gemini-key");

    // The revisit: agent-kit hands over the role's session. Gemini 0.61 cannot load a session in
    // the minute it was made, so unless the clock crossed a minute the adapter says so and opens
    // a new one; either way the answer is the scripted one and the thread completes.
    const secondDetail = (
      await store.cas.get((await store.cas.getPayload<StepPayload>(second!.hash, "step")).detail)
    ).payload as { acp: { resumed: boolean }; sessionId: string };
    const lastRequest = requests.at(-1)!.body.contents;
    if (secondDetail.acp.resumed) {
      expect(exec.stderr).toContain(`resumed session ${detail.sessionId}`);
      expect(secondDetail.sessionId).toBe(detail.sessionId);
      expect(lastRequest.length).toBeGreaterThan(1);
    } else {
      expect(exec.stderr).toMatch(
        new RegExp(
          `could not resume session ${detail.sessionId} \\(.*No previous sessions found.*\\); starting a new session`,
        ),
      );
      expect(lastRequest).toHaveLength(1);
      expect(secondDetail.sessionId).not.toBe(detail.sessionId);
    }
    await store.close();
  }, 180_000);

  it("keeps the provider's key out of the model's shell commands", async () => {
    await setup({
      script: {
        scenarios: {
          first: [
            { text: "Dumping.", tool: { run_shell_command: { command: "env > envdump.txt" } } },
            { text: answer("done", "dumped", "The environment is in envdump.txt.") },
          ],
        },
      },
    });
    const thread = await startThread("Dump the environment.");
    const exec = await env.uwf(["thread", "exec", thread, "-c", "1", "--agent", "gemini"], 120_000);
    expect(exec.code, exec.stderr).toBe(0);
    expect(fake.requests()[0]!.headers["x-goog-api-key"]).toBe("fake-gemini-key");
    const dump = readFileSync(join(env.work, "envdump.txt"), "utf8");
    expect(dump).toMatch(/^PATH=/m);
    expect(dump).not.toContain("fake-gemini-key");
  }, 120_000);
});
