import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentContext } from "@united-workforce/agent-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claudeInvocation } from "./invocation.js";

const PARENT_ENV = {
  PATH: "/usr/bin",
  HOME: "/home/ada",
  ANTHROPIC_API_KEY: "sk-ant-real",
  CLAUDE_CONFIG_DIR: "/home/ada/.claude",
  OPENAI_API_KEY: "sk-openai-real",
  FAKE_KEY: "k-from-env",
};

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-test-claude-"));
  writeFileSync(
    join(home, "config.yaml"),
    [
      "providers:",
      "  local: { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: FAKE_KEY }",
      "  chat: { baseUrl: 'http://127.0.0.1:9/v1', api: openai-chat }",
      "models:",
      "  fake: { provider: local, name: claude-fake }",
      "  gpt: { provider: chat, name: gpt-5 }",
    ].join("\n"),
  );
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function ctx(options: AgentContext["options"]): AgentContext {
  return { home, env: PARENT_ENV, options } as unknown as AgentContext;
}

describe("claudeInvocation", () => {
  it("runs claude headless with stream-json in and out, edits allowed in cwd by default", () => {
    const invocation = claudeInvocation(ctx({}), null);
    expect(invocation.command).toBe("claude");
    expect(invocation.args).toEqual([
      "-p",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
    ]);
  });

  it("without a model alias keeps the user's own Claude login, and nothing else", () => {
    const { env, model } = claudeInvocation(ctx({}), null);
    expect(model).toBeNull();
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/ada",
      TERM: "dumb",
      ANTHROPIC_API_KEY: "sk-ant-real",
      CLAUDE_CONFIG_DIR: "/home/ada/.claude",
    });
  });

  it("with a model alias points claude at that provider and drops the user's Anthropic key", () => {
    const invocation = claudeInvocation(ctx({ model: "fake", "max-retries": "0" }), "sess-1");
    expect(invocation.args).toEqual(
      expect.arrayContaining(["--resume", "sess-1", "--model", "claude-fake"]),
    );
    expect(invocation.env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/ada",
      TERM: "dumb",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
      ANTHROPIC_API_KEY: "k-from-env",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
    });
  });

  it("passes permission mode, allowed tools, a raw model name, a binary and named variables", () => {
    const invocation = claudeInvocation(
      ctx({
        "permission-mode": "plan",
        "allowed-tools": "Bash(git:*) Edit",
        "claude-model": "sonnet",
        "claude-bin": "/opt/claude",
        "pass-env": "OPENAI_API_KEY",
      }),
      null,
    );
    expect(invocation.command).toBe("/opt/claude");
    expect(invocation.args).toEqual(
      expect.arrayContaining([
        "--permission-mode",
        "plan",
        "--allowedTools",
        "Bash(git:*) Edit",
        "--model",
        "sonnet",
      ]),
    );
    expect(invocation.env.OPENAI_API_KEY).toBe("sk-openai-real");
  });

  it("refuses unknown permission modes, unknown aliases and non-Anthropic providers, saying what to do", () => {
    expect(() => claudeInvocation(ctx({ "permission-mode": "yolo" }), null)).toThrow(
      expect.objectContaining({ code: "USAGE", hint: expect.stringContaining("acceptEdits") }),
    );
    expect(() => claudeInvocation(ctx({ model: "nope" }), null)).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", hint: "Known models: fake, gpt" }),
    );
    expect(() => claudeInvocation(ctx({ model: "gpt" }), null)).toThrow(
      /speaks only the Anthropic Messages API/,
    );
    expect(() => claudeInvocation(ctx({ "max-retries": "two" }), null)).toThrow(/whole number/);
  });
});
