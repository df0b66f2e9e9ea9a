import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { askSetup, type Prompter, streamPrompter } from "./interactive.js";

/** A prompter answering from a script, recording the questions. */
function scripted(answers: string[]): Prompter & { asked: string[]; secrets: string[] } {
  const asked: string[] = [];
  const secrets: string[] = [];
  const next = () => {
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`no answer left (asked: ${asked.join(" | ")})`);
    return answer;
  };
  return {
    asked,
    secrets,
    async ask(question, fallback) {
      asked.push(question);
      const answer = next();
      return answer === "" ? (fallback ?? "") : answer;
    },
    async askSecret(question) {
      secrets.push(question);
      return next();
    },
    say() {},
  };
}

describe("askSetup", () => {
  it("takes a preset's defaults on empty answers, and its key variable on an empty key", async () => {
    const prompter = scripted(["openai", "", "", "", "gpt-5", ""]);
    expect(await askSetup(prompter, {})).toEqual({
      provider: "openai",
      baseUrl: "https://api.openai.com/v1",
      api: "openai-chat",
      apiKeyEnv: "OPENAI_API_KEY",
      model: "gpt-5",
      agent: "builtin",
    });
    expect(prompter.secrets).toEqual([expect.stringContaining("empty: $OPENAI_API_KEY")]);
  });

  it("asks again until a required or valid answer comes, and takes $VAR as a variable", async () => {
    const prompter = scripted([
      "mine",
      "",
      "http://127.0.0.1:9/v1",
      "openai",
      "anthropic",
      "$MY_KEY",
      "",
      "m1",
      "claude-code",
    ]);
    expect(await askSetup(prompter, {})).toEqual({
      provider: "mine",
      baseUrl: "http://127.0.0.1:9/v1",
      api: "anthropic",
      apiKeyEnv: "MY_KEY",
      model: "m1",
      agent: "claude-code",
    });
  });

  it("asks only what the flags did not give, and skips on -", async () => {
    expect(await askSetup(scripted(["-", "-"]), {})).toEqual({});
    const second = scripted(["sk-typed-key"]);
    expect(
      await askSetup(second, {
        provider: "openai",
        baseUrl: "http://x/v1",
        api: "openai-chat",
        model: "m",
        agent: "codex",
      }),
    ).toMatchObject({ apiKey: "sk-typed-key" });
    expect(second.asked).toEqual([]);
  });
});

describe("streamPrompter", () => {
  it("reads answers line by line, writes questions, and fails clearly when input ends", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = "";
    output.on("data", (chunk) => {
      written += chunk;
    });
    const prompter = streamPrompter(input, output);
    input.end("first\n\nsecret\n");
    expect(await prompter.ask("One", "dflt")).toBe("first");
    expect(await prompter.ask("Two", "dflt")).toBe("dflt");
    expect(await prompter.askSecret("Key")).toBe("secret");
    await expect(prompter.ask("Three")).rejects.toThrow(
      /input ended before setup had all its answers/,
    );
    prompter.close();
    expect(written).toContain("One [dflt]: ");
    expect(written).toContain("Key: ");
    expect(written).not.toContain("secret");
  });
});
