import { describe, expect, it } from "vitest";
import { minimalEnv } from "./env.js";

const PARENT = {
  PATH: "/usr/bin",
  HOME: "/home/ada",
  TMPDIR: "/tmp/ada",
  USER: "ada",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TERM: "xterm-256color",
  XDG_CONFIG_HOME: "/home/ada/.config",
  HTTPS_PROXY: "http://proxy:3128",
  ANTHROPIC_API_KEY: "sk-ant-real",
  ANTHROPIC_BASE_URL: "https://elsewhere",
  OPENAI_API_KEY: "sk-real",
  CLAUDE_CONFIG_DIR: "/home/ada/.claude",
  GITHUB_TOKEN: "ghp_secret",
  UWF_HOME: "/home/ada/.uwf",
  NODE_OPTIONS: "--inspect",
};

describe("minimalEnv", () => {
  it("keeps only locations, locale and network settings, with TERM=dumb", () => {
    expect(minimalEnv(PARENT)).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/ada",
      TMPDIR: "/tmp/ada",
      USER: "ada",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      TERM: "dumb",
      XDG_CONFIG_HOME: "/home/ada/.config",
      HTTPS_PROXY: "http://proxy:3128",
    });
  });

  it("passes the CLI's own login variables only when asked, by name or prefix", () => {
    const env = minimalEnv(PARENT, { passThrough: ["CLAUDE_CONFIG_DIR", "ANTHROPIC_*"] });
    expect(env.CLAUDE_CONFIG_DIR).toBe("/home/ada/.claude");
    expect(env.ANTHROPIC_API_KEY).toBe("sk-ant-real");
    expect(env.ANTHROPIC_BASE_URL).toBe("https://elsewhere");
    expect(env).not.toHaveProperty("OPENAI_API_KEY");
    expect(env).not.toHaveProperty("GITHUB_TOKEN");
  });

  it("sets the adapter's extras last, and removes those given as undefined", () => {
    const env = minimalEnv(PARENT, {
      passThrough: ["ANTHROPIC_*"],
      extra: { ANTHROPIC_BASE_URL: "http://127.0.0.1:9", ANTHROPIC_API_KEY: undefined, X: "1" },
    });
    expect(env.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:9");
    expect(env).not.toHaveProperty("ANTHROPIC_API_KEY");
    expect(env.X).toBe("1");
  });
});
