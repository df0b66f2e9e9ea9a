import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeLlm, type FakeStep, startFakeLlm } from "@united-workforce/test-utils";
import { isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatCompletionRequest, chatCompletion, type RetryNotice } from "./chat-completion.js";
import { ModelRequestError } from "./errors.js";
import { abortableSleep } from "./retry.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(() => llm.close());

const NOW = Date.parse("2025-01-01T00:00:00Z");

/** A request whose waits are recorded instead of slept; `onSleep` may change the script. */
function setup(overrides: Partial<ChatCompletionRequest> = {}, onSleep?: (n: number) => void) {
  const delays: number[] = [];
  const notices: RetryNotice[] = [];
  const request: ChatCompletionRequest = {
    baseUrl: llm.baseUrl,
    apiKey: "sk-test",
    model: "fake-model",
    messages: [{ role: "user", content: "hello" }],
    timeoutMs: 10_000,
    retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 5_000 },
    sleep: async (ms) => {
      delays.push(ms);
      onSleep?.(delays.length);
    },
    random: () => 1,
    now: () => NOW,
    onRetry: (notice) => notices.push(notice),
    ...overrides,
  };
  return { request, delays, notices };
}

const error = (status: number, headers: Record<string, string> = {}): FakeStep => ({
  error: { status, message: `scripted ${status}`, headers },
});

async function failure(promise: Promise<unknown>): Promise<ModelRequestError> {
  try {
    await promise;
  } catch (caught) {
    if (caught instanceof ModelRequestError) return caught;
    throw caught;
  }
  throw new Error("expected the request to fail");
}

describe("chatCompletion", () => {
  it("posts the model, messages and tools with the key, and reads the answer and usage", async () => {
    llm.setScript({ steps: [{ text: "hi there" }] });
    const { request } = setup({
      tools: [
        {
          type: "function",
          function: { name: "read_file", description: "read", parameters: { type: "object" } },
        },
      ],
      body: { temperature: 0 },
    });
    const answer = await chatCompletion(request);
    expect(answer).toEqual({
      message: { role: "assistant", content: "hi there" },
      finishReason: "stop",
      usage: { inputTokens: 10, outputTokens: 5 },
      model: "fake-model",
      attempts: 1,
    });
    const [sent] = llm.requests();
    expect(sent!.url).toBe("/v1/chat/completions");
    expect(sent!.headers.authorization).toBe("Bearer sk-test");
    expect(sent!.body).toMatchObject({
      model: "fake-model",
      temperature: 0,
      messages: [{ role: "user", content: "hello" }],
      tools: [{ function: { name: "read_file" } }],
    });
  });

  it("returns tool calls with their JSON arguments", async () => {
    llm.setScript({ steps: [{ tool: { read_file: { path: "a.txt" } } }] });
    const { request } = setup({
      tools: [
        {
          type: "function",
          function: { name: "read_file", description: "read", parameters: { type: "object" } },
        },
      ],
    });
    const answer = await chatCompletion(request);
    expect(answer.finishReason).toBe("tool_calls");
    expect(answer.message.tool_calls).toEqual([
      {
        id: expect.any(String),
        type: "function",
        function: { name: "read_file", arguments: '{"path":"a.txt"}' },
      },
    ]);
  });

  it("retries 5xx answers with doubling delays until one succeeds", async () => {
    llm.setScript({ steps: [error(503)] });
    const { request, delays, notices } = setup({}, (n) => {
      if (n === 2) llm.setScript({ steps: [{ text: "finally" }] });
    });
    const answer = await chatCompletion(request);
    expect(answer.message.content).toBe("finally");
    expect(answer.attempts).toBe(3);
    expect(delays).toEqual([100, 200]);
    expect(llm.requests()).toHaveLength(3);
    expect(notices[0]).toEqual({
      attempt: 2,
      attempts: 4,
      delayMs: 100,
      reason: "HTTP 503: scripted 503",
    });
  });

  it("jitters the backoff", async () => {
    llm.setScript({ steps: [error(500)] });
    const { request, delays } = setup({
      random: () => 0,
      retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 5_000 },
    });
    await failure(chatCompletion(request));
    expect(delays).toEqual([50, 100]);
  });

  it("waits as long as a 429's retry-after-ms or Retry-After asks", async () => {
    const date = new Date(NOW + 3_000).toUTCString();
    llm.setScript({ steps: [error(429, { "retry-after-ms": "1500" })] });
    const { request, delays } = setup({}, (n) => {
      if (n === 1) llm.setScript({ steps: [error(429, { "retry-after": "2" })] });
      if (n === 2) llm.setScript({ steps: [error(429, { "retry-after": date })] });
      if (n === 3) llm.setScript({ steps: [{ text: "ok" }] });
    });
    const answer = await chatCompletion(request);
    expect(answer.message.content).toBe("ok");
    expect(delays).toEqual([1_500, 2_000, 3_000]);
  });

  it("gives up at once when the provider asks to wait longer than the maximum delay", async () => {
    llm.setScript({ steps: [error(429, { "retry-after": "120" })] });
    const { request, delays } = setup();
    const failed = await failure(chatCompletion(request));
    expect(delays).toEqual([]);
    expect(failed.message).toContain("HTTP 429: scripted 429");
    expect(failed.message).toContain("asks to wait 120 s before retrying");
    expect(failed.hint).toContain("rate limiting");
  });

  it("never retries another 4xx, and says what the provider said and what to do", async () => {
    llm.setScript({ steps: [{ error: { status: 400, message: "model does not support tools" } }] });
    const { request, delays } = setup();
    const failed = await failure(chatCompletion(request));
    expect(delays).toEqual([]);
    expect(llm.requests()).toHaveLength(1);
    expect(failed.message).toBe(
      `model "fake-model" at ${llm.baseUrl}/chat/completions answered HTTP 400: model does not support tools`,
    );
    expect(failed.status).toBe(400);
    expect(failed.code).toBe("AGENT_FAILED");
    expect(failed.hint).toContain("supports tool calls");
  });

  it("names the key in the hint of a 401", async () => {
    llm.setScript({ steps: [error(401)] });
    const failed = await failure(chatCompletion(setup().request));
    expect(failed.hint).toContain("apiKey");
  });

  it("masks the key where the provider's answer echoes it, before cutting the message", async () => {
    // The key straddles the 300 characters a message is cut to.
    const padding = "x".repeat(290);
    llm.setScript({
      fail_first: { count: 1, status: 503, message: "overloaded for Bearer sk-test" },
      steps: [{ error: { status: 401, message: `${padding} Bearer sk-test` } }],
    });
    const { request, notices } = setup({ retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    const failed = await failure(chatCompletion(request));
    expect(notices.map((n) => n.reason)).toEqual(["HTTP 503: overloaded for Bearer ****"]);
    // Cut at 300 characters: the mask's start, not the key's.
    expect(failed.message).toContain(`answered HTTP 401: ${padding} Bearer **…`);
  });

  it("fails after the last try, counting the tries", async () => {
    llm.setScript({ steps: [error(500)] });
    const { request, delays } = setup({
      retry: { attempts: 3, baseDelayMs: 100, maxDelayMs: 5_000 },
    });
    const failed = await failure(chatCompletion(request));
    expect(llm.requests()).toHaveLength(3);
    expect(delays).toEqual([100, 200]);
    expect(failed.message).toContain("answered HTTP 500: scripted 500 (after 3 tries)");
    expect(failed.attempts).toBe(3);
  });

  it("with one attempt does not retry at all", async () => {
    llm.setScript({ steps: [error(500)] });
    const { request, delays } = setup({
      retry: { attempts: 1, baseDelayMs: 100, maxDelayMs: 5_000 },
    });
    await failure(chatCompletion(request));
    expect(llm.requests()).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("retries network errors", async () => {
    const gone = await startFakeLlm();
    await gone.close();
    const { request, delays } = setup({
      baseUrl: gone.baseUrl,
      retry: { attempts: 2, baseDelayMs: 100, maxDelayMs: 5_000 },
    });
    const failed = await failure(chatCompletion(request));
    expect(delays).toEqual([100]);
    expect(failed.kind).toBe("network");
    expect(failed.message).toMatch(
      /^cannot reach model "fake-model" at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: .+\(after 2 tries\)$/,
    );
    expect(failed.hint).toContain("baseUrl");
  });

  it("fails a try that takes longer than the timeout, without retrying it", async () => {
    llm.setScript({ steps: [{ text: "late", delay_ms: 5_000 }] });
    const { request, delays } = setup({ timeoutMs: 50 });
    const failed = await failure(chatCompletion(request));
    expect(failed.kind).toBe("timeout");
    expect(failed.message).toContain("did not answer within 50 ms");
    expect(delays).toEqual([]);
  });

  it("reports an answer that is not a chat completion, without retrying it", async () => {
    const bodies = ["<html>gateway</html>", '{"error":{"message":"upstream exploded"}}'];
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(bodies.shift());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const { request, delays } = setup({ baseUrl: `http://127.0.0.1:${port}/v1` });
      const html = await failure(chatCompletion(request));
      expect(html.kind).toBe("response");
      expect(html.message).toContain(
        "answered something that is not a chat completion: not JSON: <html>gateway</html>",
      );
      const embedded = await failure(chatCompletion(request));
      expect(embedded.message).toContain("no choices: upstream exploded");
      expect(delays).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("stops at once when its signal aborts, also while waiting to retry", async () => {
    llm.setScript({ steps: [error(500)] });
    const controller = new AbortController();
    const { request } = setup({
      signal: controller.signal,
      sleep: (ms, signal) => {
        controller.abort();
        return abortableSleep(ms, signal);
      },
    });
    const caught = await chatCompletion(request).catch((e: unknown) => e);
    expect(isUwfError(caught) && caught.code).toBe("INTERRUPTED");
    expect(llm.requests()).toHaveLength(1);

    const before = llm.requests().length;
    const again = await chatCompletion(setup({ signal: controller.signal }).request).catch(
      (e: unknown) => e,
    );
    expect(isUwfError(again) && again.code).toBe("INTERRUPTED");
    expect(llm.requests()).toHaveLength(before);
  });
});
