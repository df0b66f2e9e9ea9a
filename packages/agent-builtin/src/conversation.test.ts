import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FakeLlm,
  type FakeStep,
  startFakeLlm,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { isUwfError, type UwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Conversation, type ConversationDeps, converse } from "./conversation.js";
import { type Limits, readLimits } from "./limits.js";
import { toolDefinitions } from "./tools/tools.js";
import { Workspace } from "./tools/workspace.js";

let llm: FakeLlm;
let temp: TempHome;
beforeEach(async () => {
  llm = await startFakeLlm();
  temp = tempHome();
});
afterEach(async () => {
  await llm.close();
  temp.cleanup();
});

const ANSWER = "---\n$status: done\nsummary: wrote it\n---\nAll done.\n";

interface Harness {
  conversation: Conversation;
  deps: ConversationDeps;
  progress: string[];
  delays: number[];
}

function harness(steps: FakeStep[], limits: Partial<Limits> = {}, clock?: { t: number }): Harness {
  llm.setScript({ steps });
  const progress: string[] = [];
  const delays: number[] = [];
  const tools = toolDefinitions({ runCommand: true });
  const conversation: Conversation = {
    sessionId: "builtin-test",
    endpoint: {
      alias: "fake",
      provider: "fake",
      baseUrl: llm.baseUrl,
      apiKey: "sk-fake",
      model: "fake-model",
    },
    limits: { ...readLimits({}), ...limits },
    tools,
    messages: [
      { role: "system", content: "system" },
      { role: "user", content: "do the task" },
    ],
    turnsUsed: 0,
    deadline: (clock?.t ?? Date.now()) + (limits.maxMs ?? readLimits({}).maxMs),
  };
  const deps: ConversationDeps = {
    workspace: new Workspace(temp.home),
    commandEnv: { PATH: process.env.PATH ?? "" },
    progress: (line) => {
      progress.push(line);
      if (clock) clock.t += 1_000;
    },
    now: clock ? () => clock.t : Date.now,
    sleep: async (ms) => {
      delays.push(ms);
    },
  };
  return { conversation, deps, progress, delays };
}

type Sent = { messages: { role: string; content: string | null; tool_call_id?: string }[] };
const sent = (n: number) => llm.requests()[n]!.body as Sent;

async function failure(promise: Promise<unknown>): Promise<UwfError> {
  const caught = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  if (!isUwfError(caught)) throw new Error(`expected a UwfError, got ${String(caught)}`);
  return caught;
}

describe("converse", () => {
  it("gives the model the guidance steered since its last request, as user messages", async () => {
    const h = harness([
      { tool: { write_file: { path: "out/a.txt", content: "a" } } },
      { text: ANSWER },
    ]);
    const asked: number[] = [];
    const notes = [[], ["## Guidance from a human\n\nKeep it short."]];
    h.deps.guidance = async (turnsTaken) => {
      asked.push(turnsTaken);
      return notes[turnsTaken] ?? [];
    };
    await converse(h.conversation, h.deps);
    expect(asked).toEqual([0, 1]);
    expect(sent(0).messages.map((m) => m.role)).toEqual(["system", "user"]);
    const second = sent(1).messages;
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
    expect(second.at(-1)!.content).toBe("## Guidance from a human\n\nKeep it short.");
  });

  it("runs the tools the model calls, gives it the results, and ends with its answer", async () => {
    const h = harness([
      { tool: { write_file: { path: "out/hello.txt", content: "hi" } } },
      { text: "Checking.", tool: { read_file: { path: "out/hello.txt" } } },
      { text: ANSWER },
    ]);
    const result = await converse(h.conversation, h.deps);
    expect(result.text).toBe(ANSWER);
    expect(readFileSync(join(temp.home, "out/hello.txt"), "utf8")).toBe("hi");
    expect(h.progress).toEqual(["write_file out/hello.txt", "read_file out/hello.txt"]);
    expect(result.turns).toEqual([
      {
        text: "",
        toolCalls: [
          {
            name: "write_file",
            input: { path: "out/hello.txt", content: "hi" },
            output: "wrote 2 bytes to out/hello.txt",
            isError: false,
          },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      {
        text: "Checking.",
        toolCalls: [
          { name: "read_file", input: { path: "out/hello.txt" }, output: "hi", isError: false },
        ],
        usage: { inputTokens: 10, outputTokens: 5 },
      },
      { text: ANSWER, toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 } },
    ]);
    expect(result.usage).toMatchObject({
      inputTokens: 30,
      outputTokens: 15,
      cacheReadTokens: null,
      turns: 3,
    });

    // Each request carries the whole conversation: the call and its result, linked by id.
    const second = sent(1).messages;
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    const call = (second[2] as unknown as { tool_calls: { id: string }[] }).tool_calls[0]!;
    expect(second[3]).toEqual({
      role: "tool",
      tool_call_id: call.id,
      content: "wrote 2 bytes to out/hello.txt",
    });
    expect(h.conversation.turnsUsed).toBe(3);
  });

  it("gives a failing tool's error back to the model, which can recover", async () => {
    const h = harness([{ tool: { read_file: { path: "../../etc/passwd" } } }, { text: ANSWER }]);
    const result = await converse(h.conversation, h.deps);
    expect(result.text).toBe(ANSWER);
    expect(result.turns[0]!.toolCalls[0]).toMatchObject({ isError: true });
    expect(sent(1).messages.at(-1)!.content).toMatch(
      /^error: "\.\.\/\.\.\/etc\/passwd" is outside the working directory/,
    );
  });

  it("runs commands with the tool loop", async () => {
    const h = harness([
      { tool: { run_command: { argv: [process.execPath, "-e", "console.log(6*7)"] } } },
      { text: ANSWER },
    ]);
    const result = await converse(h.conversation, h.deps);
    expect(result.turns[0]!.toolCalls[0]!.output).toBe("exit code 0\n42\n");
  });

  it("fails with a clear error when the turn limit comes before an answer", async () => {
    const h = harness([{ tool: { list_dir: {} } }], { maxTurns: 2 });
    const error = await failure(converse(h.conversation, h.deps));
    expect(error.code).toBe("AGENT_FAILED");
    expect(error.message).toBe(
      "uwf-builtin reached its limit of 2 model turns before the model gave a final answer",
    );
    expect(error.hint).toContain("--max-turns");
    expect(llm.requests()).toHaveLength(2);
  });

  it("uses an answer the model already wrote when a limit comes", async () => {
    const h = harness([{ text: ANSWER, tool: { list_dir: {} } }], { maxTurns: 1 });
    const result = await converse(h.conversation, h.deps);
    expect(result.text).toBe(ANSWER);
    expect(h.progress.at(-1)).toBe(
      "reached its limit of 1 model turn; using the answer the model already wrote",
    );
  });

  it("fails when the step's time is up", async () => {
    const clock = { t: 1_000_000 };
    const h = harness([{ tool: { list_dir: {} } }], { maxMs: 1_500 }, clock);
    const error = await failure(converse(h.conversation, h.deps));
    expect(error.message).toBe(
      "uwf-builtin reached its time limit of 1.5 s before the model gave a final answer",
    );
    expect(error.hint).toContain("--max-seconds");
    expect(llm.requests()).toHaveLength(2);
  });

  it("cuts a hung request short at the step's deadline", async () => {
    const h = harness([{ text: ANSWER, delay_ms: 10_000 }], { maxMs: 100 });
    const error = await failure(converse(h.conversation, h.deps));
    expect(error.message).toContain("reached its time limit of 0.1 s");
  });

  it("fails on a hung request with the model's timeout when time is left", async () => {
    const h = harness([{ text: ANSWER, delay_ms: 10_000 }], { requestTimeoutMs: 100 });
    const error = await failure(converse(h.conversation, h.deps));
    expect(error.message).toContain("did not answer within 100 ms");
  });

  it("retries a failing model, saying so on stderr", async () => {
    const h = harness([{ error: { status: 500, message: "overloaded" } }], {
      retry: { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 },
    });
    h.deps.sleep = async (ms) => {
      h.delays.push(ms);
      llm.setScript({ steps: [{ text: ANSWER }] });
    };
    const result = await converse(h.conversation, h.deps);
    expect(result.text).toBe(ANSWER);
    expect(h.delays).toHaveLength(1);
    expect(h.progress[0]).toMatch(
      /^model: HTTP 500: overloaded; retrying in \d\.\d s \(try 2 of 3\)$/,
    );
  });

  it("passes an HTTP 400 on as the model's error, without retrying", async () => {
    const h = harness([{ error: { status: 400, message: "bad tools" } }]);
    const error = await failure(converse(h.conversation, h.deps));
    expect(error.code).toBe("AGENT_FAILED");
    expect(error.message).toContain("answered HTTP 400: bad tools");
    expect(h.delays).toEqual([]);
  });

  it("continues the same conversation after a correction, counting turns across both", async () => {
    const h = harness([{ text: "no frontmatter" }, { text: ANSWER }]);
    const first = await converse(h.conversation, h.deps);
    expect(first.text).toBe("no frontmatter");
    h.conversation.messages.push({ role: "user", content: "Please fix the frontmatter." });
    const second = await converse(h.conversation, h.deps);
    expect(second.text).toBe(ANSWER);
    expect(second.turns).toHaveLength(1);
    expect(sent(1).messages.map((m) => m.content)).toEqual([
      "system",
      "do the task",
      "no frontmatter",
      "Please fix the frontmatter.",
    ]);
    expect(h.conversation.turnsUsed).toBe(2);
    expect(existsSync(join(temp.home, "out"))).toBe(false);
  });
});
