import { type FakeLlm, freePort, startFakeLlm } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModel } from "./model-check.js";

const KEY = "sk-test-0123456789abcdefghijklmnop";
let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm({});
});
afterAll(() => fake.close());

describe("checkModel", () => {
  const target = { provider: "p", apiKey: KEY, model: "fake-model" };

  it.each([
    ["openai-chat", "/v1", "/v1/chat/completions"],
    ["openai-responses", "/v1", "/v1/responses"],
    ["anthropic", "", "/v1/messages"],
    ["gemini", "", "/v1beta/models/fake-model:generateContent"],
  ] as const)("asks for one token in the %s protocol", async (api, base, path) => {
    fake.setScript({ steps: [{ text: "OK" }] });
    const before = fake.requests().length;
    const check = await checkModel(
      { ...target, api, baseUrl: `${fake.url}${base}` },
      { timeoutMs: 15_000 },
    );
    expect(check).toEqual({
      name: "model fake-model at p",
      ok: true,
      detail: `answered (HTTP 200, ${api})`,
      hint: null,
    });
    const [request] = fake.requests().slice(before);
    expect(request!.url.split("?")[0]).toBe(path);
    const body = request!.body as Record<string, unknown>;
    const limit =
      body.max_tokens ??
      body.max_output_tokens ??
      (body.generationConfig as { maxOutputTokens?: number } | undefined)?.maxOutputTokens;
    expect(limit).toBe(api === "openai-responses" ? 16 : 1);
    const auth = JSON.stringify(request!.headers);
    expect(auth).toContain(KEY);
  });

  it("fails on a refused key with a hint naming the variable, and never repeats the key", async () => {
    fake.setScript({
      steps: [{ error: { status: 401, message: `Incorrect API key provided: ${KEY}` } }],
    });
    const check = await checkModel(
      { ...target, api: "openai-chat", baseUrl: fake.baseUrl, apiKeyEnv: "MY_KEY" },
      { timeoutMs: 15_000 },
    );
    expect(check.ok).toBe(false);
    expect(check.detail).toBe("HTTP 401: Incorrect API key provided: ****");
    expect(check.hint).toContain("$MY_KEY");
    expect(JSON.stringify(check)).not.toContain(KEY);
  });

  it("says when the variable holding the key is not set", async () => {
    fake.setScript({ steps: [{ error: { status: 401, message: "missing key" } }] });
    const check = await checkModel(
      {
        ...target,
        apiKey: null,
        api: "anthropic",
        baseUrl: fake.url,
        apiKeyEnv: "ANTHROPIC_API_KEY",
      },
      { timeoutMs: 15_000 },
    );
    expect(check.hint).toContain("$ANTHROPIC_API_KEY is not set");
  });

  it("retries with max_completion_tokens when a model refuses max_tokens", async () => {
    fake.setScript({
      steps: [
        {
          error: {
            status: 400,
            message: "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead.",
          },
        },
      ],
    });
    const before = fake.requests().length;
    const check = await checkModel(
      { ...target, api: "openai-chat", baseUrl: fake.baseUrl },
      { timeoutMs: 15_000 },
    );
    const sent = fake
      .requests()
      .slice(before)
      .map((r) => r.body as Record<string, unknown>);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ max_completion_tokens: 1 });
    expect(sent[1]).not.toHaveProperty("max_tokens");
    // The scripted 400 mentions the token limit again: the model is there, so it passes.
    expect(check.ok).toBe(true);
  });

  it("fails on a wrong model name with a 404 and says what to check", async () => {
    fake.setScript({ steps: [{ error: { status: 404, message: "model not found" } }] });
    const check = await checkModel(
      { ...target, api: "openai-chat", baseUrl: fake.baseUrl },
      { timeoutMs: 15_000 },
    );
    expect(check).toMatchObject({ ok: false, detail: "HTTP 404: model not found" });
    expect(check.hint).toContain("model name");
  });

  it("fails on an unreachable endpoint, naming it", async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;
    const check = await checkModel(
      { ...target, api: "openai-chat", baseUrl: url },
      { timeoutMs: 15_000 },
    );
    expect(check).toMatchObject({
      ok: false,
      detail: `cannot reach ${url}/chat/completions: ECONNREFUSED`,
    });
  });

  it("gives up after its timeout", async () => {
    fake.setScript({ steps: [{ text: "late", delay_ms: 5_000 }] });
    const check = await checkModel(
      { ...target, api: "openai-chat", baseUrl: fake.baseUrl },
      { timeoutMs: 200 },
    );
    expect(check).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/^no answer from .* within 200 ms$/),
    });
  });
});
