import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveCodexModel } from "./model.js";

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

function config(api: string | undefined): void {
  const provider = { baseUrl: "http://127.0.0.1:9/v1/", apiKeyEnv: "FAKE_KEY", api };
  writeFileSync(
    join(temp.home, "config.yaml"),
    JSON.stringify({
      providers: { p: provider },
      models: { m: { provider: "p", name: "gpt-5.5" } },
    }),
  );
}

describe("resolveCodexModel", () => {
  it("resolves an alias to the provider's URL, the key from its variable, and the model name", () => {
    config("openai-responses");
    expect(resolveCodexModel(temp.home, "m", { FAKE_KEY: "k" })).toEqual({
      alias: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "k",
      name: "gpt-5.5",
    });
  });

  it("accepts a provider that declares no api", () => {
    config(undefined);
    expect(resolveCodexModel(temp.home, "m", {}).apiKey).toBeNull();
  });

  it("refuses a provider codex cannot talk to, naming it", () => {
    config("anthropic");
    expect(() => resolveCodexModel(temp.home, "m", {})).toThrow(
      'model "m" is served by provider "p" with api "anthropic", but codex speaks only the OpenAI Responses API',
    );
  });

  it("names the known aliases for an unknown one", () => {
    config("openai-responses");
    expect(() => resolveCodexModel(temp.home, "nope", {})).toThrow('unknown model alias "nope"');
  });
});
