import { existsSync } from "node:fs";
import { ExitCode } from "@united-workforce/protocol";
import {
  createEventStream,
  errorMessage,
  eventLogWriter,
  isInternal,
  logFilePath,
  resolveHome,
  UwfError,
} from "@united-workforce/util";
import { Command, CommanderError, Option } from "commander";
import {
  checkHelpTopic,
  commandWords,
  expandShorthands,
  helpAsFlag,
  knownCommand,
  sniffFormat,
} from "./argv.js";
import type { CliIo } from "./cli-io.js";
import { allCommands, openCommandContext } from "./command-context.js";
import type { CommandSpec, OptionSpec, OutputFormat } from "./commands/command.js";
import {
  argumentLabel,
  checkArgument,
  parseOptionValues,
  valueNote,
} from "./commands/option-values.js";
import { resolveIds } from "./commands/resolve-ids.js";
import { COMMAND_TABLE } from "./commands/table.js";
import { FORMATS, GLOBAL_OPTIONS, GROUP_SUMMARIES } from "./help/globals.js";
import { checkUpstreamCommand } from "./help/renamed-commands.js";
import { renderError } from "./output/errors.js";
import { PLAIN_VIEW } from "./output/table.js";
import { formatResult } from "./output/write.js";
import { VERSION } from "./version.js";

/**
 * Parse argv, run one command, print its result through the one writer, and return the exit
 * code. Never exits: the entry does.
 */
export async function runCli(givenArgv: readonly string[], io: CliIo): Promise<number> {
  let argv = helpAsFlag(givenArgv);
  const helpTopic = argv !== givenArgv;
  const format = sniffFormat(argv) ?? (argv.includes("--json") ? "json" : "text");
  let exitCode: number = ExitCode.ok;
  try {
    argv = expandShorthands(argv);
    checkUpstreamCommand(commandWords(argv));
    if (helpTopic) checkHelpTopic(commandWords(argv));
    const program = buildProgram(
      io,
      (code) => {
        exitCode = code;
      },
      await commandsFor(argv),
    );
    await program.parseAsync(argv as string[], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") {
        return ExitCode.ok;
      }
      // `uwf help` exits 0; `uwf` or `uwf <group>` without a command prints help to stderr and
      // is a usage error, so a script that forgot the command does not look successful.
      if (error.code === "commander.help")
        return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
      const known = knownCommand(commandWords(argv));
      const usage = new UwfError("USAGE", error.message.replace(/^error: /, ""), {
        hint:
          known.length > 0
            ? `Run \`uwf ${known.join(" ")} --help\` for its usage.`
            : "Run `uwf --help` (or `uwf <command> --help`) for usage.",
      });
      const rendered = renderError(usage, format);
      io.stderr(rendered.text);
      return rendered.exitCode;
    }
    const rendered = renderError(error, format, logInternal(error, argv, io));
    io.stderr(rendered.text);
    return rendered.exitCode;
  }
}

/**
 * Log an error uwf did not expect, with its stack, and say where: the hint asks for that log.
 * Only the command's words are logged, not its arguments, which may hold a secret.
 */
function logInternal(error: unknown, argv: readonly string[], io: CliIo): string | undefined {
  if (!isInternal(error)) return undefined;
  try {
    const home = resolveHome(io.env);
    createEventStream(eventLogWriter(home)).emit("command.crashed", {
      command: commandWords(argv).slice(0, 2).join(" "),
      message: errorMessage(error),
      ...(error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
    });
    const file = logFilePath(home);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The commands to give commander: only the one argv names when it names one, so that a run
 * loads that command's code alone; all of them for help, a group, or words that name none
 * (commander then lists them or suggests the nearest).
 */
async function commandsFor(argv: readonly string[]): Promise<readonly CommandSpec[]> {
  const words = commandWords(argv).slice(0, 2);
  const named = COMMAND_TABLE.find((entry) => entry.path.every((word, i) => words[i] === word));
  if (named) return [(await named.load()).default];
  return allCommands();
}

export function buildProgram(
  io: CliIo,
  setExitCode: (code: number) => void,
  commands: readonly CommandSpec[],
): Command {
  const program = new Command("uwf")
    .description(
      "uwf (United Workforce): run multi-role agent workflows, one step per call, no daemon.",
    )
    .version(VERSION, GLOBAL_OPTIONS[1].flags, GLOBAL_OPTIONS[1].description)
    .helpOption(GLOBAL_OPTIONS[2].flags, GLOBAL_OPTIONS[2].description)
    .addOption(
      new Option(GLOBAL_OPTIONS[0].flags, "output format").choices(FORMATS).default("text"),
    )
    // Never parsed (expandShorthands makes it `--format json`), only listed in help.
    .addOption(new Option(GLOBAL_OPTIONS[3].flags, GLOBAL_OPTIONS[3].description))
    // Commander leaves a description unwrapped beside options when less than 40 columns are
    // left for it; on a narrow terminal 20 still reads better than lines the terminal breaks.
    .configureHelp({ minWidthToWrap: 20 })
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout(text),
      // Commander's own error text is replaced by ours (see runCli), so it is not printed twice.
      writeErr: (text) => {
        if (!text.startsWith("error:")) io.stderr(text);
      },
      // Commander asks process.stdout by default, which for a pipe is a socket (net and the
      // stream modules, ≈ 4 ms of a start). Help is plain text, so it never needs colours; 80
      // columns is commander's own width for what is not a terminal.
      getOutHelpWidth: () => io.columns?.(1) ?? 80,
      getErrHelpWidth: () => io.columns?.(2) ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    });

  const groups = new Map<string, Command>();
  for (const spec of commands) {
    const [group, name] = spec.path;
    if (!group) continue;
    let parent = program;
    if (name) {
      let groupCommand = groups.get(group);
      if (!groupCommand) {
        groupCommand = program
          .command(group)
          .description(GROUP_SUMMARIES[group] ?? "")
          .exitOverride();
        groups.set(group, groupCommand);
      }
      parent = groupCommand;
    }
    addCommand(parent, name ?? group, spec, io, setExitCode);
  }
  return program;
}

/** An option as commander keys its value, with its spec. */
interface KeyedOption {
  spec: OptionSpec;
  key: string;
}

function addCommand(
  parent: Command,
  name: string,
  spec: CommandSpec,
  io: CliIo,
  setExitCode: (code: number) => void,
): void {
  const command = parent.command(name, { hidden: spec.hidden ?? false }).description(spec.summary);
  // expandShorthands turns `ls` into `list` before commander parses; the alias shows it in help.
  if (name === "list") command.alias("ls");
  command.exitOverride();
  for (const arg of spec.args ?? []) {
    command.argument(argumentLabel(arg), arg.description);
  }
  // Defaults and choices are not given to commander: every value, a default included, goes
  // through one parser (parseInput), and the help text says what each option takes.
  const options = (spec.options ?? []).map((opt): KeyedOption => {
    const option = new Option(opt.flags, withNote(opt.description, valueNote(opt)));
    if (opt.hidden) option.hideHelp();
    if (opt.type === "string" && opt.repeatable) {
      option.argParser((value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        value,
      ]);
    }
    command.addOption(option);
    return { spec: opt, key: option.attributeName() };
  });
  if (spec.description || spec.examples?.length) {
    // The prose wraps to the help's width like commander's own text; examples stay one line
    // each, to be copied whole.
    command.addHelpText("after", ({ error }) => {
      const output = command.configureOutput();
      const width = (error ? output.getErrHelpWidth : output.getOutHelpWidth)?.() ?? 80;
      const help = command.createHelp();
      return `\n${[
        ...(spec.description ? [help.boxWrap(spec.description, width)] : []),
        ...(spec.examples?.length ? ["Examples:", ...spec.examples.map((e) => `  $ ${e}`)] : []),
      ].join("\n")}`;
    });
  }
  command.action(async (...actionArgs: unknown[]) => {
    const cmd = actionArgs[actionArgs.length - 1] as Command;
    setExitCode(await runCommand(spec, cmd, options, io));
  });
}

/**
 * One command's run: check and parse what commander read, resolve id prefixes, run the
 * handler and print its result through the one writer. Returns the exit code.
 */
async function runCommand(
  spec: CommandSpec,
  cmd: Command,
  options: readonly KeyedOption[],
  io: CliIo,
): Promise<number> {
  const raw = cmd.optsWithGlobals() as Record<string, unknown>;
  const { values, parsed } = parseInput(spec, cmd, raw, options);
  const format = (raw.format as OutputFormat | undefined) ?? "text";
  const { context, close } = openCommandContext(spec, io, format);
  const onAbort = () =>
    context.events.emit("command.interrupted", { by: String(io.signal.reason) });
  io.signal.addEventListener("abort", onAbort, { once: true });
  try {
    await resolveIds(
      spec,
      values,
      parsed,
      options.map(({ spec: opt, key }) => ({
        key,
        type: opt.type,
        ...(opt.type === "hash" && opt.keywords ? { keywords: opt.keywords } : {}),
      })),
      context.store,
    );
    const run = () => spec.run(context, values.flat(), parsed as never);
    const result = spec.interruptible ? await io.interruptible(run) : await run();
    if (!result.printed) {
      // Only a terminal has a width: a pipe, a file or /dev/null keeps the plain form.
      const view =
        format === "text" ? { tty: io.columns?.(1) !== undefined, now: Date.now() } : PLAIN_VIEW;
      io.stdout(await formatResult(result, format, view));
    }
    if (result.signalHandled) io.signalHandled?.();
    return result.exitCode ?? ExitCode.ok;
  } finally {
    io.signal.removeEventListener("abort", onAbort);
    await close();
  }
}

/** The arguments, checked, one list per declared argument; the options, parsed by their spec. */
function parseInput(
  spec: CommandSpec,
  cmd: Command,
  raw: Record<string, unknown>,
  options: readonly KeyedOption[],
): { values: string[][]; parsed: Record<string, unknown> } {
  const values = (cmd.processedArgs as unknown[]).map((value) =>
    value === undefined ? [] : Array.isArray(value) ? (value as string[]) : [value as string],
  );
  (spec.args ?? []).forEach((arg, i) => {
    for (const value of values[i] ?? []) checkArgument(arg, value);
  });
  return { values, parsed: parseOptionValues(options, raw, Date.now()) };
}

function withNote(description: string, note: string): string {
  return note === "" ? description : `${description} (${note})`;
}
