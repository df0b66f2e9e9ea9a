import { UwfError } from "@united-workforce/util";
import type { OutputFormat } from "./commands/command.js";
import { COMMAND_TABLE } from "./commands/table.js";
import { FORMATS } from "./help/globals.js";

// What runCli reads of argv before commander parses it: which command it names (to load that
// one alone), `uwf help <words>`, and the --format that even early errors are printed in.

/** The words before the options: `thread exec 01K…` of `--format json thread exec 01K…`. */
export function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--format") i++;
    else if (arg === "--") break;
    else if (!arg.startsWith("-")) words.push(arg);
  }
  return words;
}

/**
 * The longest start of `words` that names a group or a command (`thread exec` of `thread exec
 * 01K… extra`, `workflow` of `workflow lsit`): the help a usage error points to.
 */
export function knownCommand(words: readonly string[]): string[] {
  let known: string[] = [];
  for (const entry of COMMAND_TABLE) {
    let n = 0;
    while (n < entry.path.length && words[n] === entry.path[n]) n++;
    if (n > known.length) known = entry.path.slice(0, n);
  }
  return known;
}

/** `uwf help <words>` names a group or a command, or it is a usage error naming the words. */
export function checkHelpTopic(words: readonly string[]): void {
  if (knownCommand(words).length === words.length) return;
  throw new UwfError("USAGE", `no command "uwf ${words.join(" ")}"`, {
    hint: "`uwf --help` lists the commands, `uwf help <group>` a group's",
  });
}

/**
 * `uwf help thread exec` is `uwf thread exec --help`, whatever the depth (commander's own
 * `help` command knows only the first word), and `uwf help nosuch` is an unknown command.
 */
export function helpAsFlag(argv: readonly string[]): readonly string[] {
  const first = argv.findIndex((arg) => !arg.startsWith("-"));
  if (first === -1 || argv[first] !== "help" || argv[first - 1] === "--format") return argv;
  const rest = [...argv.slice(0, first), ...argv.slice(first + 1)];
  return rest.some((arg) => !arg.startsWith("-")) ? [...rest, "--help"] : argv;
}

/**
 * The shorthands argv may use, spelled out before anything reads it: `--json` is
 * `--format json`, and `ls` after a group is that group's `list`. Words after `--` are left.
 */
export function expandShorthands(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf("--");
  const options = end === -1 ? argv : argv.slice(0, end);
  const words = commandWords(options);
  const listAt = words[1] === "ls" ? commandWordIndex(options, 1) : -1;
  const hasList = COMMAND_TABLE.some((e) => e.path[0] === words[0] && e.path[1] === "list");
  if (!options.includes("--json") && !(listAt !== -1 && hasList)) return argv;
  if (options.includes("--json")) {
    const format = sniffFormat(options.filter((arg) => arg !== "--json"));
    if (format !== null && format !== "json") {
      throw new UwfError("USAGE", `--json asks for JSON, --format for ${format}`, {
        hint: "Give one of them: --json is --format json.",
      });
    }
  }
  const expanded = options.flatMap((arg, i): string[] => {
    if (arg === "--json") return ["--format", "json"];
    return i === listAt && hasList ? ["list"] : [arg];
  });
  return end === -1 ? expanded : [...expanded, ...argv.slice(end)];
}

/** Where the `n`th command word stands in argv, or -1. */
function commandWordIndex(argv: readonly string[], n: number): number {
  let seen = -1;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--format") i++;
    else if (arg === "--") return -1;
    else if (!arg.startsWith("-") && ++seen === n) return i;
  }
  return -1;
}

/** The `--format` argv names, or null: it must shape even errors raised before commander parses. */
export function sniffFormat(argv: readonly string[]): OutputFormat | null {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = arg.startsWith("--format=")
      ? arg.slice(9)
      : arg === "--format"
        ? argv[i + 1]
        : undefined;
    if (value && (FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  }
  return null;
}
