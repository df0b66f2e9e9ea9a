import { EXIT_CODE_MEANINGS } from "@united-workforce/protocol";
import type { CommandSpec } from "../commands/command.js";
import { argumentLabel, valueNote } from "../commands/option-values.js";
import { GROUP_SUMMARIES } from "./globals.js";
import { UPSTREAM_COMMANDS } from "./renamed-commands.js";

/** Flags and usage line of one command, as `--help` shows them. */
export function usageLine(spec: CommandSpec): string {
  const args = (spec.args ?? []).map(argumentLabel);
  return ["uwf", ...spec.path, ...args, ...(spec.options?.length ? ["[options]"] : [])].join(" ");
}

/** How a failure reaches the caller, said once for docs/cli.md and `uwf prompt usage`. */
export const ERRORS_SENTENCE =
  'Errors go to stderr as `error: …` and `hint: …` lines; with `--format json` or `yaml` as the document `{ "error": { "code", "message", "hint", "exitCode", … } }` in that format (stdout stays empty).';

/** The exit-code table from protocol, as markdown rows, in code order. */
export function exitCodeRows(): string[] {
  return Object.entries(EXIT_CODE_MEANINGS)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([code, meaning]) => `| ${code} | ${meaning} |`);
}

export function publicCommands(commands: readonly CommandSpec[]): CommandSpec[] {
  return commands.filter((c) => !c.hidden);
}

/** docs/cli.md, generated from the command table so the two cannot drift. */
export function renderCliReference(commands: readonly CommandSpec[]): string {
  const out: string[] = [
    "# uwf CLI reference",
    "",
    "<!-- Generated from the command table by `pnpm docs:cli`; a test fails when this file is stale. -->",
    "",
    "Global options: `--format text|json|yaml` (default text; json and yaml print the command's document),",
    "`--json` (same as `--format json`), `-V, --version`, `-h, --help`. Every `list` command is also",
    "`ls`. The storage root is `UWF_HOME` (default `~/.uwf`).",
    "",
    "## Exit codes",
    "",
    "| code | meaning |",
    "| --- | --- |",
    ...exitCodeRows(),
    "",
    ERRORS_SENTENCE,
    "",
    "## Upstream command names",
    "",
    "Upstream united-workforce's old names answer with uwf's (exit 2), as [coming from upstream](coming-from-upstream.md) explains:",
    "",
    "| upstream | uwf |",
    "| --- | --- |",
    ...UPSTREAM_COMMANDS.map((c) => `| \`${c.upstream}\` | \`${c.instead}\` |`),
    "",
  ];
  let group = "";
  for (const spec of publicCommands(commands)) {
    const [first] = spec.path;
    if (first !== group) {
      group = first!;
      // A one-word command (`uwf setup`) is its own group, with no summary above its own.
      const summary = GROUP_SUMMARIES[group];
      out.push(
        `## uwf ${group}`,
        "",
        ...(summary === undefined ? [] : [`${capitalise(summary)}.`, ""]),
      );
    }
    out.push(`### \`uwf ${spec.path.join(" ")}\``, "", `${capitalise(spec.summary)}.`, "");
    if (spec.description) out.push(spec.description, "");
    out.push("```", usageLine(spec), "```", "");
    const rows = [
      ...(spec.args ?? []).map((a) => row(argumentLabel(a), a.description, "")),
      ...(spec.options ?? [])
        .filter((o) => !o.hidden)
        .map((o) => row(o.flags, o.description, valueNote(o))),
    ];
    if (rows.length) out.push("| argument / option | meaning |", "| --- | --- |", ...rows, "");
    if (spec.examples?.length) out.push("Examples:", "", "```sh", ...spec.examples, "```", "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function row(name: string, description: string, note: string): string {
  return `| \`${name}\` | ${description}${note ? ` (${note})` : ""} |`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
