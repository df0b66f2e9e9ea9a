import { type FakeLlm, startFakeLlm } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { extractWithModel } from "./model-extract.js";

let llm: FakeLlm;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(() => llm.close());

const call = (timeoutMs?: number) =>
  extractWithModel({
    endpoint: { baseUrl: `${llm.baseUrl}/`, apiKey: null, model: "m" },
    schema: { type: "object" },
    rawOutput: "raw",
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });

describe("extractWithModel", () => {
  it("reads a JSON object even when the model fences it", async () => {
    llm.setScript({ steps: [{ text: 'Here you go:\n```json\n{"$status": "done", "n": 1}\n```' }] });
    const result = await call();
    expect(result.data).toEqual({ $status: "done", n: 1 });
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
    expect(llm.requests()[0]!.headers.authorization).toBeUndefined();
  });

  it("fails with a readable message when the reply holds no JSON object", async () => {
    llm.setScript({ steps: [{ text: "sorry, I cannot" }] });
    await expect(call()).rejects.toThrow(
      "extract model reply holds no JSON object: sorry, I cannot",
    );
  });

  it("gives up after its timeout", async () => {
    llm.setScript({ steps: [{ text: "{}", delay_ms: 2_000 }] });
    await expect(call(100)).rejects.toThrow("did not answer within 100 ms");
  });
});
