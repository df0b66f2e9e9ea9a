import { describe, expect, it } from "vitest";
import { parseAgentArgs, usageText } from "./argv.js";

const specs = { preset: { description: "a preset" } };
const parse = (argv: string[], passthrough = true) =>
  parseAgentArgs(argv, specs, {}, { passthrough });

describe("parseAgentArgs with `--`", () => {
  it("keeps the words after `--` for an adapter that takes them", () => {
    const args = parse([
      "--thread",
      "t1",
      "--role",
      "dev",
      "--prompt",
      "go",
      "--",
      "gemini",
      "--acp",
    ]);
    expect(args).toMatchObject({ thread: "t1", role: "dev", prompt: "go" });
    expect(args.passthrough).toEqual(["gemini", "--acp"]);
  });

  it("reads uwf's own flags appended after a configured `-- <command>`", () => {
    const args = parse([
      "--preset",
      "x",
      "--",
      "opencode",
      "acp",
      "--model",
      "m",
      "--thread",
      "t1",
      "--role",
      "dev",
      "--prompt",
      "--looks like a flag",
    ]);
    expect(args.passthrough).toEqual(["opencode", "acp", "--model", "m"]);
    expect(args).toMatchObject({ thread: "t1", role: "dev", prompt: "--looks like a flag" });
    expect(args.options).toEqual({ preset: "x" });
  });

  it("peels each of uwf's flags once, so an agent's own --prompt stays with the agent", () => {
    const args = parse([
      "--",
      "agent",
      "--prompt",
      "agent's own",
      "--thread",
      "t1",
      "--role",
      "dev",
      "--prompt",
      "uwf's",
    ]);
    expect(args.passthrough).toEqual(["agent", "--prompt", "agent's own"]);
    expect(args.prompt).toBe("uwf's");
  });

  it("is a usage error for an adapter that takes no passthrough", () => {
    expect(() =>
      parse(["--thread", "t", "--role", "r", "--prompt", "p", "--", "x"], false),
    ).toThrow('unexpected argument "--"');
  });

  it("is empty without `--`", () => {
    expect(parse(["--thread", "t", "--role", "r", "--prompt", "p"]).passthrough).toEqual([]);
  });

  it("shows the passthrough in --help", () => {
    expect(usageText("uwf-acp", specs, "agent command…")).toContain(
      "Usage: uwf-acp --thread <id> --role <role> --prompt <text> [options] [-- <agent command…>]",
    );
  });
});
