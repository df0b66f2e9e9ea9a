import { describe, expect, it } from "vitest";
import { formatKeyPath, parseKeyPath } from "./keys.js";

describe("config key paths", () => {
  it("split on dots, with brackets for a name that holds one", () => {
    expect(parseKeyPath("providers.openai.apiKey")).toEqual(["providers", "openai", "apiKey"]);
    expect(parseKeyPath('agents["my.agent"].command')).toEqual(["agents", "my.agent", "command"]);
    expect(parseKeyPath("defaultAgent")).toEqual(["defaultAgent"]);
  });

  it("format back to what they parse from", () => {
    for (const key of ["providers.openai.apiKey", 'agents["my.agent"].env.API_KEY', "store"]) {
      expect(formatKeyPath(parseKeyPath(key))).toBe(key);
    }
  });

  it("refuse empty segments and stray brackets as usage errors", () => {
    for (const key of ["", "a..b", ".a", "a.", "a[b]", 'a["b"'])
      expect(() => parseKeyPath(key), key).toThrow(
        expect.objectContaining({
          code: "USAGE",
          message: expect.stringContaining("not a config key"),
        }),
      );
  });
});
