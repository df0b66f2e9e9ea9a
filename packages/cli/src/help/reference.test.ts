import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../commands/index.js";
import { renderCliReference } from "./reference.js";
import { UPSTREAM_COMMANDS } from "./renamed-commands.js";

describe("docs/cli.md", () => {
  it("is exactly what the command table generates (run `pnpm docs:cli` after changing a command)", () => {
    const onDisk = readFileSync(new URL("../../../../docs/cli.md", import.meta.url), "utf8");
    expect(onDisk).toBe(renderCliReference(COMMANDS));
  });

  it("documents every public command", () => {
    const text = renderCliReference(COMMANDS);
    for (const spec of COMMANDS.filter((c) => !c.hidden)) {
      expect(text).toContain(`### \`uwf ${spec.path.join(" ")}\``);
    }
  });

  it("puts no empty summary under a one-word command's heading", () => {
    const text = renderCliReference(COMMANDS);
    expect(text).toContain("## uwf setup\n\n### `uwf setup`");
    expect(text).not.toMatch(/^\.$/m);
  });
});

describe("docs/coming-from-upstream.md", () => {
  it("lists every upstream command name uwf answers, with its replacement", () => {
    const page = readFileSync(
      new URL("../../../../docs/coming-from-upstream.md", import.meta.url),
      "utf8",
    );
    for (const { upstream, instead } of UPSTREAM_COMMANDS) {
      const head = `| \`uwf ${upstream}`;
      const row = page
        .split("\n")
        .find((line) => line.startsWith(`${head} `) || line.startsWith(`${head}\``));
      expect(row, upstream).toBeDefined();
      expect(row).toContain(`\`${instead}\``);
    }
  });
});
