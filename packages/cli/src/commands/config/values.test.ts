import { describe, expect, it } from "vitest";
import {
  isSecretKey,
  leaves,
  maskValue,
  parseConfigValue,
  schemaAt,
  unknownKeyHint,
} from "./values.js";

describe("masking", () => {
  it("knows secrets by their key, not variable names that point at them", () => {
    expect(isSecretKey(["providers", "p", "apiKey"])).toBe(true);
    expect(isSecretKey(["agents", "a", "env", "ANTHROPIC_AUTH_TOKEN"])).toBe(true);
    expect(isSecretKey(["agents", "a", "env", "DB_PASSWORD"])).toBe(true);
    expect(isSecretKey(["providers", "p", "apiKeyEnv"])).toBe(false);
    expect(isSecretKey(["agents", "a", "env", "ANTHROPIC_BASE_URL"])).toBe(false);
  });

  it("leaves names the user chose alone: a role called auth, an alias called token", () => {
    const config = {
      agents: { token: { command: "x", env: { AUTH: "abc" } } },
      agentOverrides: { deploy: { auth: "token", secret: "claude --api-key sk-1" } },
      providers: { key: { baseUrl: "https://x/v1", apiKey: "sk-0123456789abcdefghijkl" } },
    };
    expect(maskValue([], config)).toEqual({
      agents: { token: { command: "x", env: { AUTH: "****" } } },
      agentOverrides: { deploy: { auth: "token", secret: "claude --api-key ****" } },
      providers: { key: { baseUrl: "https://x/v1", apiKey: "sk-…ijkl" } },
    });
    expect(isSecretKey(["agentOverrides", "deploy", "auth"])).toBe(false);
    expect(isSecretKey(["agentOverrides", "token"])).toBe(false);
  });

  it("masks at any depth, and passwords inside URLs", () => {
    const config = {
      providers: { p: { baseUrl: "https://x/v1", apiKey: "sk-0123456789abcdefghijkl" } },
      agents: {
        a: { command: "x", env: { GITHUB_TOKEN: "ghp_0123456789abcdefghij", MODE: "fast" } },
      },
      store: "postgres://uwf:hunter2@db:5432/uwf",
    };
    expect(maskValue([], config)).toEqual({
      providers: { p: { baseUrl: "https://x/v1", apiKey: "sk-…ijkl" } },
      agents: { a: { command: "x", env: { GITHUB_TOKEN: "ghp…ghij", MODE: "fast" } } },
      store: "postgres://uwf:****@db:5432/uwf",
    });
  });
});

describe("masking what QA found in clear", () => {
  it("knows env names ending in KEY, PASS or AUTH, but not the ones naming a variable", () => {
    for (const name of ["OPENAI_KEY", "ANTHROPIC_KEY", "PASS", "MY_AUTH", "sessionToken"]) {
      expect(isSecretKey(["agents", "x", "env", name]), name).toBe(true);
    }
    for (const name of ["MONKEY", "AUTHOR", "PASSAGE", "KEYBOARD_LAYOUT", "OPENAI_KEY_ENV"]) {
      expect(isSecretKey(["agents", "x", "env", name]), name).toBe(false);
    }
  });

  it("masks URL parameters named like secrets, a flag's value in args, and numeric keys", () => {
    const config = {
      providers: {
        p: { baseUrl: "https://x/v1?api_key=sk-0123456789abcdef&region=eu", apiKey: 1.2345e23 },
      },
      agents: {
        a: {
          command: "x",
          args: ["--api-key", "sk-0123456789abcdefghijkl", "--model", "m", "--token=abc123"],
          env: { MY_AUTH: "Bearer abc", MODE: "fast" },
        },
      },
      store: "postgres://db/uwf?sslmode=require&password=hunter2",
    };
    expect(maskValue([], config)).toEqual({
      providers: { p: { baseUrl: "https://x/v1?api_key=****&region=eu", apiKey: "****" } },
      agents: {
        a: {
          command: "x",
          args: ["--api-key", "sk-…ijkl", "--model", "m", "--token=****"],
          env: { MY_AUTH: "****", MODE: "fast" },
        },
      },
      store: "postgres://db/uwf?sslmode=require&password=****",
    });
  });
});

describe("leaves", () => {
  it("lists scalars, lists and empty mappings with their key paths", () => {
    expect(leaves({ a: { b: 1, c: [1, 2], d: {} }, e: null })).toEqual([
      { path: ["a", "b"], value: 1 },
      { path: ["a", "c"], value: [1, 2] },
      { path: ["a", "d"], value: {} },
      { path: ["e"], value: null },
    ]);
  });
});

describe("config set values", () => {
  it("keeps text as typed where the key takes text", () => {
    expect(parseConfigValue("4o", schemaAt(["models", "m", "name"])!)).toBe("4o");
    expect(parseConfigValue("0123", schemaAt(["providers", "p", "apiKey"])!)).toBe("0123");
    expect(parseConfigValue("true", schemaAt(["defaultAgent"])!)).toBe("true");
    expect(parseConfigValue("gemini", schemaAt(["providers", "p", "api"])!)).toBe("gemini");
  });

  it("reads YAML or JSON where the key takes more", () => {
    expect(parseConfigValue("30", schemaAt(["agents", "a", "timeoutSeconds"])!)).toBe(30);
    expect(parseConfigValue("[--x, y]", schemaAt(["agents", "a", "args"])!)).toEqual(["--x", "y"]);
    expect(parseConfigValue('{"command":"x"}', schemaAt(["agents", "a"])!)).toEqual({
      command: "x",
    });
    expect(() => parseConfigValue("[a", schemaAt(["agents", "a", "args"])!)).toThrow(
      /not valid YAML or JSON/,
    );
    expect(() =>
      parseConfigValue("{ apiKey: sk-0123456789abcdef", schemaAt(["providers", "p"])!),
    ).toThrow(/^the value is not valid YAML or JSON: [^\n]*\}$/);
  });

  it("knows every key of the schema, names under maps included, and nothing else", () => {
    expect(schemaAt(["agents", "any-name", "env", "ANY_VAR"])).toEqual({ type: "string" });
    expect(schemaAt(["providers", "p", "apikey"])).toBeNull();
    expect(schemaAt(["colour"])).toBeNull();
  });

  it("suggests the key a typo meant", () => {
    expect(unknownKeyHint(["providers", "p", "baseURL"])).toContain(
      "Did you mean providers.p.baseUrl?",
    );
    expect(unknownKeyHint(["defaultAgnet"])).toContain("Did you mean defaultAgent?");
    expect(unknownKeyHint(["colour"])).toMatch(/^Keys at the top level: providers, models/);
  });
});
