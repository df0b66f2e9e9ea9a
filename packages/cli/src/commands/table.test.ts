import { describe, expect, it } from "vitest";
import { COMMANDS } from "./index.js";
import { COMMAND_TABLE } from "./table.js";

describe("the lazy command table", () => {
  it("lists every command of COMMANDS, in the same order, under its own words", () => {
    expect(COMMAND_TABLE.map((entry) => entry.path.join(" "))).toEqual(
      COMMANDS.map((spec) => spec.path.join(" ")),
    );
  });

  it("loads, for each entry, the very command COMMANDS holds", async () => {
    const loaded = await Promise.all(
      COMMAND_TABLE.map(async (entry) => (await entry.load()).default),
    );
    for (const [i, spec] of loaded.entries()) expect(spec).toBe(COMMANDS[i]);
  });
});
