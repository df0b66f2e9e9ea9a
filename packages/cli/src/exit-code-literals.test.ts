import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL(".", import.meta.url));
const EXIT = "(?:0|1|2|3|4|5|130)";

/**
 * Exit statuses come from protocol's table (`ExitCode.agentFailed`, `exitCodeFor(code)`), so
 * DESIGN §12's list is the only place a number is given a meaning. These patterns find a
 * number standing in for one.
 */
const EVERYWHERE = [
  /\bexitCode\s*[:=]\s*\d/,
  /\bprocess\.exit(?:Code)?\s*(?:\(|=[^=])\s*\d/,
  new RegExp(`\\?\\s*${EXIT}\\s*:\\s*${EXIT}\\b`),
];
/** Where a function's result is an exit status: commands, the entry, the writer. */
const EXIT_CODE_FILES = /^(commands\/|output\/|program\.ts$|main\.ts$)/;
const RETURNS_A_NUMBER = /\breturn\s+\d+\s*;/;

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "__fixtures__") yield* sourceFiles(path);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) yield path;
  }
}

function literalExitCodes(file: string, text: string): string[] {
  const patterns = EXIT_CODE_FILES.test(file) ? [...EVERYWHERE, RETURNS_A_NUMBER] : EVERYWHERE;
  return text
    .split("\n")
    .flatMap((line, i) =>
      /^\s*(\/\/|\/?\*)/.test(line) || !patterns.some((p) => p.test(line))
        ? []
        : [`${file}:${i + 1}: ${line.trim()}`],
    );
}

describe("exit codes", () => {
  it("are never written as numbers in the CLI's sources", () => {
    const found = [...sourceFiles(SRC)].flatMap((path) =>
      literalExitCodes(relative(SRC, path), readFileSync(path, "utf8")),
    );
    expect(found).toEqual([]);
  });

  it("are caught when one is", () => {
    const samples = [
      "  return result(doc, render, exists ? 0 : 1);",
      "  if (failed) return 4;",
      "  process.exit(130);",
      "  process.exitCode = 2;",
      "  return { document, exitCode: 3 };",
    ];
    expect(samples.flatMap((line) => literalExitCodes("commands/x.ts", line))).toHaveLength(
      samples.length,
    );
    expect(literalExitCodes("commands/x.ts", "  return ExitCode.agentFailed;")).toEqual([]);
  });
});
