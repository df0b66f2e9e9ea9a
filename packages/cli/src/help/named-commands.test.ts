import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../commands/index.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const GROUPS = new Set(COMMANDS.map((c) => c.path[0]));
/** Every command group DESIGN §12 names, built or not, plus commander's own `help`. */
const DESIGN_GROUPS = [
  "workflow",
  "thread",
  "step",
  "cas",
  "config",
  "setup",
  "doctor",
  "prompt",
  "log",
  "help",
];
const KNOWN = new Set(COMMANDS.map((c) => c.path.join(" ")));
/** DESIGN §5 fixes this message word for word; `uwf prompt` arrives with its own issue. */
const MANDATED = "see uwf prompt workflow-authoring";

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist" && entry.name !== "__fixtures__") {
        yield* sourceFiles(path);
      }
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
      yield path;
    }
  }
}

describe("messages and hints", () => {
  it("never tell the user to run a uwf command that does not exist", () => {
    const unknown: string[] = [];
    for (const pkg of readdirSync(join(root, "packages"))) {
      for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
        // Comments may talk about commands to come; messages and hints may not.
        const text = readFileSync(file, "utf8")
          .split("\n")
          .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
          .join("\n")
          .replaceAll(MANDATED, "");
        for (const match of text.matchAll(/\buwf ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/g)) {
          const [, group, sub] = match;
          if (!DESIGN_GROUPS.includes(group!) || group === "help") continue;
          // A one-word command (`uwf setup`) takes no sub-command: the next word is prose.
          const known =
            KNOWN.has(group!) ||
            (GROUPS.has(group!) && (sub === undefined || KNOWN.has(`${group} ${sub}`)));
          if (!known) unknown.push(`${file.slice(root.length)}: ${match[0]}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it("never cite a file the user does not have (no docs/ path, no design notes)", () => {
    // Published packages ship no docs/ folder: messages link to the repository (docsUrl) or
    // name a `uwf prompt` guide, which ships with the CLI.
    const cited: string[] = [];
    for (const pkg of readdirSync(join(root, "packages"))) {
      for (const file of sourceFiles(join(root, "packages", pkg, "src"))) {
        const lines = readFileSync(file, "utf8").split("\n");
        lines.forEach((line, i) => {
          if (/^\s*(\/\/|\/\*|\*)/.test(line)) return;
          if (/(?<![\w/])docs\/[\w-]+\.md|DESIGN(\.md| §)/.test(line))
            cited.push(`${file.slice(root.length)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(cited).toEqual([]);
  });
});
