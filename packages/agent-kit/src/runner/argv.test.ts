import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseAgentArgs, readAgentArgs, usageText } from "./argv.js";

const base = ["--thread", "T", "--role", "writer"];

describe("parseAgentArgs", () => {
  it("reads --model and --replace-head", () => {
    const args = parseAgentArgs(
      [...base, "--prompt", "Go", "--model", "fast", "--replace-head"],
      {},
      {},
    );
    expect(args).toMatchObject({ prompt: "Go", model: "fast", replaceHead: true });
    expect(parseAgentArgs([...base, "--prompt", "Go"], {}, {})).toMatchObject({
      model: null,
      replaceHead: false,
    });
  });

  it("ignores UWF_REPLACE_HEAD: only the flag replaces the head", () => {
    const args = parseAgentArgs([...base, "--prompt", "Go"], {}, { UWF_REPLACE_HEAD: "1" });
    expect(args.replaceHead).toBe(false);
  });

  it("collects a repeatable option's values in order, and says so in --help", () => {
    const specs = { from: { description: "a recording", repeatable: true } };
    const args = parseAgentArgs(
      [...base, "--prompt", "Go", "--from", "a", "--from=b", "--from", "c"],
      specs,
      {},
    );
    expect(args.options.from).toEqual(["a", "b", "c"]);
    expect(parseAgentArgs([...base, "--prompt", "Go"], specs, {}).options.from).toBeUndefined();
    expect(usageText("uwf-replay", specs)).toMatch(/--from <value> +a recording \(repeatable\)/);
  });

  it("refuses a value for --replace-head", () => {
    expect(() => parseAgentArgs([...base, "--prompt", "Go", "--replace-head=1"], {}, {})).toThrow(
      'option "--replace-head" takes no value',
    );
  });
});

describe("readAgentArgs", () => {
  it("reads the prompt from stdin for --prompt -, whole and in UTF-8", async () => {
    const prompt = `Review: ${"ä".repeat(300_000)}\n— end`;
    // Chunks that split a two-byte character must still decode to the same text.
    const bytes = Buffer.from(prompt);
    const chunks = [bytes.subarray(0, 9), bytes.subarray(9, 70_001), bytes.subarray(70_001)];
    const args = await readAgentArgs([...base, "--prompt", "-"], {}, {}, {}, Readable.from(chunks));
    expect(args.prompt).toBe(prompt);
  });

  it("leaves stdin alone when the prompt is in argv", async () => {
    const stdin = Readable.from(["unread"]);
    const args = await readAgentArgs([...base, "--prompt", "Go"], {}, {}, {}, stdin);
    expect(args.prompt).toBe("Go");
    expect(stdin.readableEnded).toBe(false);
  });

  it("is a usage error when stdin holds nothing", async () => {
    await expect(
      readAgentArgs([...base, "--prompt", "-"], {}, {}, {}, Readable.from([])),
    ).rejects.toMatchObject({ code: "USAGE", message: "--prompt - found no prompt on stdin" });
  });

  it("documents the new flags in --help", () => {
    const text = usageText("uwf-x", {});
    expect(text).toContain("--prompt <text|->");
    expect(text).toContain("--model <alias>");
    expect(text).toContain("--replace-head");
  });
});

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
      "--port",
      "0",
      "--thread",
      "t1",
      "--role",
      "dev",
      "--prompt",
      "--looks like a flag",
    ]);
    expect(args.passthrough).toEqual(["opencode", "acp", "--port", "0"]);
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
      "Usage: uwf-acp --thread <id> --role <role> --prompt <text|-> [options] [-- <agent command…>]",
    );
  });
});

describe("parseAgentArgs with `--` and uwf's later flags", () => {
  it("peels --model and a trailing --replace-head off the words after `--`", () => {
    const args = parseAgentArgs(
      [
        "--",
        "gemini",
        "--acp",
        "--model",
        "fast",
        "--thread",
        "T",
        "--role",
        "dev",
        "--prompt",
        "go",
        "--replace-head",
      ],
      {},
      {},
      { passthrough: true },
    );
    expect(args).toMatchObject({
      passthrough: ["gemini", "--acp"],
      model: "fast",
      replaceHead: true,
      prompt: "go",
    });
  });
});
