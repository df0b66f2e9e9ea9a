import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlm, startFakeLlm } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkModel, checkReachable, commandVersion } from "./checks.js";

const KEY = "sk-test-0123456789abcdefghijklmnop";
let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm({});
});
afterAll(() => fake.close());

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

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
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
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

describe("checkReachable", () => {
  it("passes on any HTTP answer and shows the status", async () => {
    expect(await checkReachable("provider p", fake.baseUrl, { timeoutMs: 10_000 })).toEqual({
      name: "provider p",
      ok: true,
      detail: `${fake.baseUrl} reachable (HTTP 404)`,
      hint: null,
    });
  });

  it("fails when nothing answers", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const check = await checkReachable("provider p", url, { timeoutMs: 10_000 });
    expect(check).toMatchObject({ ok: false, detail: `cannot reach ${url}: ECONNREFUSED` });
    expect(check.hint).toContain("uwf config set providers.p.baseUrl");
  });
});

describe("commandVersion", () => {
  it("runs --version with only PATH and HOME, and keeps the first line", async () => {
    const script = `console.log(process.argv[2], Object.keys(process.env).sort().join(","))`;
    const node = process.execPath;
    const dir = mkdtempSync(join(tmpdir(), "uwf-version-"));
    try {
      const bin = join(dir, "agent");
      writeFileSync(bin, `#!${node}\n${script}\n`);
      chmodSync(bin, 0o755);
      const env = { PATH: process.env.PATH, HOME: dir, SECRET_TOKEN: "x" };
      expect(await commandVersion(bin, env, 10_000)).toEqual({
        version: "--version HOME,PATH",
        problem: null,
      });
      writeFileSync(bin, `#!${node}\nprocess.exit(2)\n`);
      expect(await commandVersion(bin, env, 10_000)).toEqual({
        version: null,
        problem: "--version failed (exit 2)",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
