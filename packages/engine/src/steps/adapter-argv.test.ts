import { describe, expect, it } from "vitest";
import { adapterArgv, PROMPT_ARG_LIMIT } from "./adapter-argv.js";

const agent = { args: ["--scenario", "s.yaml"], model: null };
const plan = { role: "writer", prompt: "Write a line.", replaceHead: false };

describe("adapterArgv", () => {
  it("passes an ordinary edge prompt in argv and leaves stdin closed", () => {
    expect(adapterArgv(agent, "T1", plan)).toEqual({
      args: ["--scenario", "s.yaml", "--thread", "T1", "--role", "writer", "--prompt", plan.prompt],
      stdin: null,
    });
  });

  it("sends a prompt over the limit through stdin as --prompt -", () => {
    const atLimit = "x".repeat(PROMPT_ARG_LIMIT);
    expect(adapterArgv(agent, "T1", { ...plan, prompt: atLimit }).stdin).toBeNull();
    // The limit counts bytes, not characters: 2-byte characters cross it at half the length.
    const long = "é".repeat(PROMPT_ARG_LIMIT / 2 + 1);
    const { args, stdin } = adapterArgv(agent, "T1", { ...plan, prompt: long });
    expect(args.slice(-2)).toEqual(["--prompt", "-"]);
    expect(stdin).toBe(long);
  });

  it("sends a prompt that is exactly '-' through stdin, so it is not read as a request for stdin", () => {
    expect(adapterArgv(agent, "T1", { ...plan, prompt: "-" })).toMatchObject({ stdin: "-" });
  });

  it("adds the agent's model and the poke flag", () => {
    const { args } = adapterArgv({ args: [], model: "fast" }, "T1", { ...plan, replaceHead: true });
    expect(args).toEqual([
      "--model",
      "fast",
      "--thread",
      "T1",
      "--role",
      "writer",
      "--prompt",
      "Write a line.",
      "--replace-head",
    ]);
  });
});
