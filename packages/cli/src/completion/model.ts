import type { CommandSpec } from "../commands/command.js";

/** One option as completion sees it: its spellings, whether it takes a value, its choices. */
export interface CompletionOption {
  long: string | null;
  short: string | null;
  takesValue: boolean;
  choices: readonly string[];
  description: string;
}

export interface CompletionCommand {
  /** `"thread exec"`, `"setup"`. */
  key: string;
  name: string;
  summary: string;
  options: CompletionOption[];
}

export interface CompletionGroup {
  name: string;
  summary: string;
  commands: CompletionCommand[];
}

/** What every shell's script is generated from: the command table, nothing written twice. */
export interface CompletionModel {
  /** Groups and one-word commands, in table order. */
  top: { name: string; summary: string }[];
  groups: CompletionGroup[];
  commands: CompletionCommand[];
  global: CompletionOption[];
}

export function completionModel(
  commands: readonly CommandSpec[],
  groupSummaries: Record<string, string>,
  globalOptions: readonly { flags: string; description: string; choices?: readonly string[] }[],
): CompletionModel {
  const visible = commands.filter((command) => !command.hidden);
  const top: CompletionModel["top"] = [];
  const groups = new Map<string, CompletionGroup>();
  const all: CompletionCommand[] = [];
  for (const spec of visible) {
    const [first, second] = spec.path as readonly string[];
    const command: CompletionCommand = {
      key: spec.path.join(" "),
      name: second ?? first!,
      summary: spec.summary,
      options: (spec.options ?? [])
        .filter((option) => !option.hidden)
        .map((option) =>
          optionOf(option.flags, option.description, option.type === "enum" ? option.choices : []),
        ),
    };
    all.push(command);
    if (second === undefined) {
      top.push({ name: first!, summary: spec.summary });
      continue;
    }
    let group = groups.get(first!);
    if (group === undefined) {
      group = { name: first!, summary: groupSummaries[first!] ?? "", commands: [] };
      groups.set(first!, group);
      top.push({ name: first!, summary: group.summary });
    }
    group.commands.push(command);
  }
  top.push({ name: "help", summary: "show help for a command" });
  return {
    top,
    groups: [...groups.values()],
    commands: all,
    global: globalOptions.map((option) =>
      optionOf(option.flags, option.description, option.choices ?? []),
    ),
  };
}

function optionOf(
  flags: string,
  description: string,
  choices: readonly string[],
): CompletionOption {
  return {
    long: /--[A-Za-z0-9-]+/.exec(flags)?.[0] ?? null,
    short: /(?:^|[ ,])(-[A-Za-z0-9])\b/.exec(flags)?.[1] ?? null,
    takesValue: /[<[]/.test(flags),
    choices,
    description,
  };
}
