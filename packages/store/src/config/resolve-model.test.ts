import { describe, expect, it } from "vitest";
import { resolveModel } from "./resolve-model.js";

describe("resolveModel", () => {
  const config = {
    providers: {
      local: { baseUrl: "http://127.0.0.1:9/v1/", apiKeyEnv: "LOCAL_KEY" },
      claude: { api: "anthropic" as const, baseUrl: "https://api.anthropic.com", apiKey: "k2" },
    },
    models: {
      sonnet: { provider: "claude", name: "claude-sonnet-4-5" },
      extract: { provider: "local", name: "tiny" },
      broken: { provider: "nope", name: "x" },
    },
  };

  it("gives the endpoint, its api (openai-chat unless said), the key and the model name", () => {
    expect(resolveModel(config, "extract", { LOCAL_KEY: "k" })).toEqual({
      provider: "local",
      api: "openai-chat",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "k",
      model: "tiny",
    });
    expect(resolveModel(config, "extract", {}).apiKey).toBeNull();
    expect(resolveModel(config, "sonnet", {})).toMatchObject({ api: "anthropic", apiKey: "k2" });
  });

  it("explains unknown aliases and providers", () => {
    expect(() => resolveModel(config, "big", {})).toThrow(/unknown model alias "big"/);
    expect(() => resolveModel(config, "broken", {})).toThrow(
      /names provider "nope", which is not configured/,
    );
  });
});
