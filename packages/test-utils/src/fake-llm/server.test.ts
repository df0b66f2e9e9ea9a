import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempHome, tempHome } from "../home.js";
import { type FakeLlm, startFakeLlm } from "./server.js";

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${llm!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("startFakeLlm", () => {
  it("answers a chat-completions request from the script and logs it", async () => {
    llm = await startFakeLlm({ script: { steps: [{ text: "first" }, { text: "second" }] } });
    expect(llm.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await post("/v1/chat/completions", {
      model: "m",
      messages: [{ role: "user", content: "hello" }],
    });
    expect(response.status).toBe(200);
    const json = (await response.json()) as {
      choices: { message: { content: string } }[];
      usage: unknown;
    };
    expect(json.choices[0]!.message.content).toBe("first");
    expect(json.usage).toEqual({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    expect(llm.requests()).toHaveLength(1);
    expect(llm.requests()[0]).toMatchObject({
      method: "POST",
      url: "/v1/chat/completions",
      body: { model: "m" },
      served: { scenario: "default", turn: 0, reply: "text" },
    });
  });

  it("picks the step by the assistant turns already in the request", async () => {
    llm = await startFakeLlm({ script: { steps: [{ text: "first" }, { text: "second" }] } });
    const messages = [
      { role: "user", content: "a" },
      { role: "assistant", content: "first" },
      { role: "user", content: "b" },
    ];
    const json = (await (await post("/v1/chat/completions", { messages })).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(json.choices[0]!.message.content).toBe("second");
  });

  it("streams chat completions as SSE chunks", async () => {
    llm = await startFakeLlm({ script: { steps: [{ text: "streamed answer" }] } });
    const response = await post("/v1/chat/completions", { stream: true, messages: [] });
    const text = await response.text();
    const deltas = text
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice(6)) as { choices: { delta: { content?: string } }[] })
      .map((chunk) => chunk.choices[0]?.delta.content ?? "")
      .join("");
    expect(deltas).toBe("streamed answer");
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  });

  it("makes a tool call when the request offers the tool", async () => {
    llm = await startFakeLlm({
      script: {
        steps: [{ tool: { write_file: { path: "a.txt" } }, text: "writing" }, { text: "done" }],
      },
    });
    const tools = [{ type: "function", function: { name: "write_file", parameters: {} } }];
    const json = (await (await post("/v1/chat/completions", { tools, messages: [] })).json()) as {
      choices: {
        message: { tool_calls: { function: { name: string; arguments: string } }[] };
        finish_reason: string;
      }[];
    };
    expect(json.choices[0]!.finish_reason).toBe("tool_calls");
    expect(json.choices[0]!.message.tool_calls[0]!.function).toEqual({
      name: "write_file",
      arguments: '{"path":"a.txt"}',
    });
  });

  it("returns scripted errors in the API's own shape, and picks scenarios by marker", async () => {
    llm = await startFakeLlm({
      script: {
        steps: [{ text: "default" }],
        scenarios: { broken: [{ error: { status: 429, message: "slow down" } }] },
      },
    });
    const response = await post("/v1/messages", {
      messages: [{ role: "user", content: "[[scenario:broken]]" }],
    });
    expect(response.status).toBe(429);
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" },
    });
  });

  it("fails the first N model requests with fail_first, then follows the script", async () => {
    llm = await startFakeLlm({
      script: {
        steps: [{ text: "after the limit" }],
        fail_first: { count: 2, status: 429, headers: { "retry-after": "7" } },
      },
    });
    // Side requests are not model requests: they neither fail nor count.
    expect((await post("/v1/messages/count_tokens", { messages: [] })).status).toBe(200);
    const first = await post("/v1/chat/completions", { messages: [] });
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("7");
    expect(((await first.json()) as { error: { type: string } }).error.type).toBe(
      "rate_limit_exceeded",
    );
    const second = await post("/v1/messages", { messages: [] });
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { type: string } }).error.type).toBe(
      "rate_limit_error",
    );
    const third = (await (await post("/v1/chat/completions", { messages: [] })).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(third.choices[0]!.message.content).toBe("after the limit");
    expect(llm.requests().map((r) => r.served.reply)).toEqual([
      "count_tokens",
      "error",
      "error",
      "text",
    ]);
    // A new script starts the count again; without a count every request fails.
    llm.setScript({ steps: [{ text: "never" }], fail_first: { status: 529 } });
    for (let i = 0; i < 3; i++) {
      const overloaded = await post("/v1/messages", { messages: [] });
      expect(overloaded.status).toBe(529);
      expect(((await overloaded.json()) as { error: { type: string } }).error.type).toBe(
        "overloaded_error",
      );
    }
    const gemini = await post("/v1beta/models/gemini-2.5-pro:generateContent", { contents: [] });
    expect(gemini.status).toBe(529);
    // A body of the test's own, e.g. a usage limit with its reset.
    // Only requests that offer tools, when asked: a side request passes and does not count.
    llm.setScript({ steps: [{ text: "side" }], fail_first: { count: 1, with_tools: true } });
    expect((await post("/v1/chat/completions", { messages: [] })).status).toBe(200);
    const tools = [{ type: "function", function: { name: "f", parameters: {} } }];
    expect((await post("/v1/chat/completions", { messages: [], tools })).status).toBe(429);
    expect((await post("/v1/chat/completions", { messages: [], tools })).status).toBe(200);
    const usage = { error: { type: "usage_limit_reached", resets_in_seconds: 90 } };
    llm.setScript({ fail_first: { count: 1, status: 429, body: usage } });
    const limited = await post("/v1/responses", { input: [] });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual(usage);
  });

  it("speaks Anthropic Messages, OpenAI Responses and Gemini too", async () => {
    llm = await startFakeLlm({ script: { steps: [{ text: "hi" }] } });
    const anthropic = (await (await post("/v1/messages", { messages: [] })).json()) as {
      content: { text: string }[];
    };
    expect(anthropic.content[0]!.text).toBe("hi");
    const responses = (await (
      await post("/v1/responses", { stream: false, input: [] })
    ).json()) as {
      output: { content: { text: string }[] }[];
    };
    expect(responses.output[0]!.content[0]!.text).toBe("hi");
    const gemini = (await (
      await post("/v1beta/models/gemini-2.5-pro:generateContent", { contents: [] })
    ).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(gemini.candidates[0]!.content.parts[0]!.text).toBe("hi");
    expect((await fetch(`${llm.url}/v1/models`)).status).toBe(200);
    expect((await post("/nowhere", {})).status).toBe(404);
  });

  describe("with a script file", () => {
    let temp: TempHome;
    beforeEach(() => {
      temp = tempHome();
    });
    afterEach(() => temp.cleanup());

    it("re-reads it on every request", async () => {
      const file = join(temp.home, "script.json");
      writeFileSync(file, JSON.stringify({ steps: [{ text: "one" }] }));
      llm = await startFakeLlm({ script: file });
      const ask = async () =>
        (
          (await (await post("/v1/chat/completions", { messages: [] })).json()) as {
            choices: { message: { content: string } }[];
          }
        ).choices[0]!.message.content;
      expect(await ask()).toBe("one");
      writeFileSync(file, JSON.stringify({ steps: [{ text: "two" }] }));
      expect(await ask()).toBe("two");
    });
  });
});
