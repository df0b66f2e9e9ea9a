import { describe, expect, it } from "vitest";
import { commandLabel } from "./agent-step.js";

describe("commandLabel", () => {
  it("names a script run by an interpreter after the script", () => {
    expect(
      commandLabel("/usr/bin/node", [
        "/repo/packages/agent-mock/bin/uwf-mock.cjs",
        "--scenario",
        "s",
      ]),
    ).toBe("uwf-mock");
    expect(commandLabel("python3", ["agents/review.py"])).toBe("review");
  });

  it("names any other command after its file", () => {
    expect(commandLabel("/usr/local/bin/uwf-claude-code", ["--model", "x"])).toBe(
      "uwf-claude-code",
    );
    expect(commandLabel("node", ["--version"])).toBe("node");
  });
});
