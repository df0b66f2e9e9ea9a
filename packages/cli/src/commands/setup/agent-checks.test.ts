import { describe, expect, it } from "vitest";
import { checkAgentModel } from "./agent-checks.js";

const models = { small: { provider: "local", name: "m" } };

describe("checkAgentModel", () => {
  it("fails uwf-builtin with no model anywhere, and passes it one from any source", () => {
    const builtin = { command: "uwf-builtin", args: [] };
    expect(checkAgentModel("b", builtin, { models })).toMatchObject({
      name: "agent b: model",
      ok: false,
      detail:
        "uwf-builtin needs a model, and has none: no --model in its args, no model:, no defaultModel",
    });
    expect(checkAgentModel("b", builtin, { models, defaultModel: "small" })).toBeNull();
    expect(checkAgentModel("b", { ...builtin, model: "small" }, { models })).toBeNull();
    expect(checkAgentModel("b", { ...builtin, args: ["--model=small"] }, { models })).toBeNull();
  });

  it("fails a --model in the args that is not a configured alias, naming the known ones", () => {
    const check = checkAgentModel(
      "cc",
      { command: "/usr/bin/uwf-claude-code", args: ["--model", "nosuchalias"] },
      { models },
    );
    expect(check).toMatchObject({
      ok: false,
      detail: "--model nosuchalias in its args is not a model in config.yaml",
    });
    expect(check!.hint).toContain("Known models: small.");
    // The agent's own `model:` comes last on the command line, so it is the one used.
    expect(
      checkAgentModel(
        "cc",
        { command: "uwf-claude-code", args: ["--model", "nosuchalias"], model: "small" },
        { models },
      ),
    ).toBeNull();
  });

  it("lets an agent that takes its own model names, and unknown adapters, be", () => {
    const gemini = {
      command: "uwf-acp",
      args: ["--preset", "gemini", "--model", "gemini-2.5-pro"],
    };
    expect(checkAgentModel("g", gemini, { models })).toBeNull();
    expect(checkAgentModel("x", { command: "my-agent", args: ["--model", "zz"] }, {})).toBeNull();
    expect(checkAgentModel("m", { command: "uwf-mock", args: [] }, {})).toBeNull();
    // After `--` the words are the agent command's, not the adapter's.
    const acp = {
      command: "uwf-acp",
      args: ["--preset", "opencode", "--", "opencode", "--model", "zz"],
    };
    expect(checkAgentModel("o", acp, { models })).toBeNull();
  });
});
