import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AGENT_PRESETS, PROVIDER_PRESETS, presetForCommand } from "./presets.js";

/** The cells of every table row in docs/config.md (tables there are aligned by the formatter). */
const rows = readFileSync(new URL("../../../../../docs/config.md", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.startsWith("|"))
  .map((line) =>
    line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );

describe("presets", () => {
  it("are all in docs/config.md, each provider with its URL, api and key variable", () => {
    for (const p of PROVIDER_PRESETS) {
      const key = p.apiKeyEnv ? `\`${p.apiKeyEnv}\`` : "none";
      const row = rows.find((cells) => cells[0] === `\`${p.name}\``);
      expect(row?.slice(0, 4)).toEqual([`\`${p.name}\``, p.baseUrl, p.api, key]);
    }
    for (const a of AGENT_PRESETS) {
      // `gemini` names a provider too: the agents' table has a command in its second column.
      const row = rows.find((cells) => cells[0] === `\`${a.alias}\`` && cells[1]!.startsWith("`"));
      expect(row?.slice(0, 3)).toEqual([
        `\`${a.alias}\``,
        `\`${[a.command, ...a.args].join(" ")}\``,
        a.cli ? `\`${a.cli}\`` : "none",
      ]);
    }
  });

  it("name each provider and agent once", () => {
    const names = PROVIDER_PRESETS.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    const aliases = AGENT_PRESETS.map((a) => a.alias);
    expect(new Set(aliases).size).toBe(aliases.length);
  });

  it("find the adapter a command line runs, the longest preset first", () => {
    expect(presetForCommand("/usr/bin/uwf-codex", [])?.alias).toBe("codex");
    expect(presetForCommand("uwf-acp", ["--preset", "claude", "--x"])?.alias).toBe("claude-acp");
    expect(presetForCommand("uwf-acp", [])).toBeNull();
    expect(presetForCommand("my-agent", [])).toBeNull();
  });
});
