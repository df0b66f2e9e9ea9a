import { readdirSync } from "node:fs";
import { runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArgumentType, CommandSpec, OptionType } from "../src/commands/command.js";
import { COMMANDS } from "../src/commands/index.js";
import { argumentLabel, flagName } from "../src/commands/option-values.js";

/**
 * Every typed option and argument of every command, tried with a bad value: the cases come
 * from the command table, so a new option is tried as soon as it is declared. Adding an
 * option type without saying here what a bad value of it is fails to compile.
 */
const BAD_OPTION_VALUES: Record<OptionType, readonly string[]> = {
  boolean: [],
  // Any text is a value; what it must look like is the command's business (e.g. key=value).
  string: [],
  integer: ["abc", "1.5"],
  duration: ["soon"],
  time: ["yesterday"],
  enum: ["not-a-choice"],
  hash: ["not-a-hash"],
  thread: ["not-a-thread"],
};
const GOOD_ARGUMENTS: Record<ArgumentType, string> = {
  string: "x",
  hash: "0000000000000",
  thread: "01ARZ3NDEKTSV4RRFFQ69G5FAV",
  day: "2026-01-31",
};
const BAD_ARGUMENTS: Record<ArgumentType, readonly string[]> = {
  string: [],
  // Any case and any prefix of 4 or more is accepted (and looked up): these are not ids at all.
  hash: ["3qw", "../evil", "3QWJ6G2V7ZK1MA"],
  thread: ["01a", "../evil", "8ZZZZ"],
  day: ["31/01/2026", "2026-02-30"],
};

interface Case {
  title: string;
  args: string[];
  /** What stderr must name: the flag or the argument. */
  names: string;
}

/** The shortest valid call: required arguments and required options filled in. */
function validCall(spec: CommandSpec): string[] {
  const args = (spec.args ?? [])
    .filter((a) => a.required !== false)
    .map((a) => GOOD_ARGUMENTS[a.type ?? "string"]);
  const options = (spec.options ?? []).flatMap((o) =>
    o.type === "string" && o.required ? [flagName(o), "x"] : [],
  );
  return [...spec.path, ...args, ...options];
}

function casesOf(spec: CommandSpec): Case[] {
  const command = spec.path.join(" ");
  const cases: Case[] = [];
  for (const option of spec.options ?? []) {
    const flag = flagName(option);
    const bad = [...BAD_OPTION_VALUES[option.type]];
    if (option.type === "integer" && option.min !== undefined) bad.push(String(option.min - 1));
    if (option.type === "integer" && option.max !== undefined) bad.push(String(option.max + 1));
    if (option.type === "string" && option.required) bad.push(" ");
    for (const value of bad) {
      // A flag given twice takes the last value, so the valid filler never hides the bad one.
      cases.push({
        title: `${command} ${flag} ${JSON.stringify(value)}`,
        args: [...validCall(spec), flag, value],
        names: flag,
      });
    }
  }
  (spec.args ?? []).forEach((arg, index) => {
    for (const value of BAD_ARGUMENTS[arg.type ?? "string"]) {
      const args = validCall(spec);
      const position = spec.path.length + index;
      args.splice(position, arg.required === false ? 0 : 1, value);
      cases.push({
        title: `${command} ${argumentLabel(arg)} ${JSON.stringify(value)}`,
        args,
        names: argumentLabel(arg),
      });
    }
  });
  return cases;
}

const CASES = COMMANDS.flatMap(casesOf);

describe("a bad option or argument value is a usage error naming it", () => {
  let temp: TempHome;
  beforeAll(() => {
    temp = tempHome();
  });
  afterAll(() => temp.cleanup());

  it("covers every typed option and argument of the command table", () => {
    const typed = COMMANDS.flatMap((spec) => [
      ...(spec.options ?? [])
        .filter((o) => o.type !== "boolean" && (o.type !== "string" || o.required))
        .map((o) => `${spec.path.join(" ")} ${flagName(o)}`),
      ...(spec.args ?? [])
        .filter((a) => (a.type ?? "string") !== "string")
        .map((a) => `${spec.path.join(" ")} ${argumentLabel(a)}`),
    ]);
    const tried = new Set(CASES.map((c) => c.title.replace(/ "[^"]*"$/, "")));
    expect(typed.filter((t) => !tried.has(t))).toEqual([]);
    expect(typed.length).toBeGreaterThan(20);
  });

  it.each(CASES.map((c) => [c.title, c] as const))("%s", async (_title, c) => {
    const result = await runUwf(c.args, { home: temp.home });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(c.names);
    expect(result.stderr).toMatch(/^error: .*\nhint: /);
    // The handler never ran: nothing was written, not even a log line.
    expect(readdirSync(temp.home)).toEqual([]);
  });
});
