import type { DocumentName, DocumentOf, ExitCode } from "@united-workforce/protocol";
import type { Store, UwfConfig } from "@united-workforce/store";
import type { EventStream } from "@united-workforce/util";
import type { TextView } from "../output/table.js";

export type OutputFormat = "text" | "json" | "yaml";

/** What every handler gets: resolved once by the entry, so handlers never read the environment. */
export interface CommandContext {
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
  format: OutputFormat;
  /** Where the command's events go: the process log, and any listener the command adds. */
  events: EventStream;
  /** Progress for humans (adapter stderr, notices). Never the command's result. */
  progress(text: string): void;
  /**
   * The width of the terminal on stdout (1) or stderr (2); undefined when that descriptor is
   * not a terminal. Asked at each use: a terminal can be resized.
   */
  columns(fd: 1 | 2): number | undefined;
  /**
   * The result, on stdout, a part at a time: for a command that follows something until it is
   * interrupted (`log show -f`) and returns a result marked `printed`.
   */
  output(text: string): void;
  /**
   * Aborted when the output is closed, and on SIGINT/SIGTERM/SIGHUP for an `interruptible`
   * command, so long handlers can stop their children and clean up.
   */
  signal: AbortSignal;
  /** How to start this same CLI again (node + script), for background workers. */
  self: readonly string[];
  /** Every command's spec, for the commands that describe the CLI (completion, the guides). */
  commands(): Promise<readonly CommandSpec[]>;
  /** config.yaml, read on first use (`{}` when there is none). */
  config(): Promise<UwfConfig>;
  /** The store (config.yaml's `store:` or UWF_STORE say which), opened on first use. */
  store(): Promise<Store>;
}

/**
 * What a positional argument holds. Every kind but `string` is checked before the handler
 * runs; the handler still gets the text (a hash or an id is a string either way).
 */
export type ArgumentType = "string" | "hash" | "thread" | "day";

export interface ArgumentSpec {
  name: string;
  description: string;
  /** Default `string`: anything goes. */
  type?: ArgumentType;
  required?: boolean;
  variadic?: boolean;
  /** Words allowed in its place, taken as they are (`thread race promote <fork>`). */
  keywords?: readonly string[];
}

interface OptionBase {
  /** Commander flags, e.g. "-c, --count <n>". A boolean option takes no `<value>`. */
  flags: string;
  description: string;
  /** What to do instead, shown when the value is refused (a generic one is made otherwise). */
  hint?: string;
  /** Internal options (e.g. the background worker's) stay out of help and docs. */
  hidden?: boolean;
}

/** A flag without a value: true when given. */
export interface BooleanOption extends OptionBase {
  type: "boolean";
}

export interface StringOption extends OptionBase {
  type: "string";
  default?: string;
  /** Refused when missing or blank. */
  required?: boolean;
  /** May be given many times; the handler gets every value in order (none: an empty list). */
  repeatable?: boolean;
}

/** A whole number, written in digits. */
export interface IntegerOption extends OptionBase {
  type: "integer";
  min?: number;
  max?: number;
  /** Written as a user would type it: it goes through the same parser. */
  default?: string;
}

export type DurationUnit = "ms" | "s" | "m" | "h" | "d" | "w";

/** A duration like `500ms`, `30s`, `5m`, `1h`, `7d`, `2w` or `0`; the handler gets milliseconds. */
export interface DurationOption extends OptionBase {
  type: "duration";
  default?: string;
  /** The unit of a bare number (`--timeout 30` is 30 s); without it only `0` may be bare. */
  bareUnit?: DurationUnit;
}

/** An ISO 8601 time, or an age (`7d`) meaning that long before now; the handler gets epoch ms. */
export interface TimeOption extends OptionBase {
  type: "time";
  default?: string;
}

export interface EnumOption extends OptionBase {
  type: "enum";
  choices: readonly string[];
  default?: string;
}

/** A CAS hash; `keywords` are other words allowed in its place (e.g. `schema`). */
export interface HashOption extends OptionBase {
  type: "hash";
  keywords?: readonly string[];
}

/** A thread id (a ULID). */
export interface ThreadOption extends OptionBase {
  type: "thread";
}

export type OptionSpec =
  | BooleanOption
  | StringOption
  | IntegerOption
  | DurationOption
  | TimeOption
  | EnumOption
  | HashOption
  | ThreadOption;

export type OptionType = OptionSpec["type"];

/** `"-k, --keep-recent <age>"` → `"keepRecent"`, as commander names the parsed value. */
export type OptionKey<Flags extends string> = CamelCase<LongFlag<Flags>>;
type LongFlag<Flags extends string> = Flags extends `${string}--${infer Rest}`
  ? Rest extends `${infer Name} ${string}`
    ? Name
    : Rest
  : never;
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

type ParsedValue<O extends OptionSpec> = O extends BooleanOption
  ? boolean
  : O extends { repeatable: true }
    ? string[]
    : O extends IntegerOption | DurationOption | TimeOption
      ? number
      : O extends { type: "enum"; choices: readonly (infer C)[] }
        ? C
        : string;

/** Booleans, options with a default and required ones always have a value. */
type OptionValue<O extends OptionSpec> = O extends
  | BooleanOption
  | { default: string }
  | { required: true }
  | { repeatable: true }
  ? ParsedValue<O>
  : ParsedValue<O> | undefined;

/** What a handler receives for its option table: parsed, checked, defaults applied. */
export type OptionValues<Options extends readonly OptionSpec[]> = {
  [O in Options[number] as OptionKey<O["flags"]>]: OptionValue<O>;
};

/** A command's result: a JSON-able document plus how to show it to a person. */
export interface CommandResult<D = unknown> {
  document: D;
  /** The text form; `view` says whether stdout is a terminal (tables, relative times). */
  text(document: D, view: TextView): string;
  /** Exit code for a result that is not a failure but is not plain success either. */
  exitCode?: ExitCode;
  /** Already printed through `output` as it happened: nothing more goes to stdout. */
  printed?: boolean;
  /**
   * The signal that aborted the command ended it as its contract says (a fleet worker told to
   * stop while it waited): `exitCode` stands instead of the 130 of an interrupted command.
   */
  signalHandled?: boolean;
}

/** `["thread", "exec"]` → `"thread exec"`. */
type Words<Path extends readonly string[]> = Path extends readonly [infer Only extends string]
  ? Only
  : Path extends readonly [infer First extends string, ...infer Rest extends readonly string[]]
    ? `${First} ${Words<Rest>}`
    : never;

/**
 * The document a command returns: the one protocol defines for its words. A command whose
 * words have no schema in protocol's `documentSchemas()` can return nothing (`never`), so every
 * `--format json` document has a type and a schema.
 */
export type DocumentFor<Path extends readonly string[]> = string[] extends Path
  ? unknown
  : Words<Path> extends DocumentName
    ? DocumentOf<Words<Path>>
    : never;

export interface CommandSpec<
  Options extends readonly OptionSpec[] = readonly OptionSpec[],
  Path extends readonly string[] = readonly string[],
> {
  /** Words after `uwf`, e.g. ["thread", "exec"]. */
  path: Path;
  summary: string;
  description?: string;
  args?: readonly ArgumentSpec[];
  options?: Options;
  examples?: readonly string[];
  /** Hidden commands (internal workers) are left out of help, docs and prompts. */
  hidden?: boolean;
  /**
   * The handler holds something to clean up (an adapter, a lock) or waits on `signal`: a
   * signal aborts `signal` instead of ending the process. Others keep the default, so Ctrl-C
   * works even while they are busy in synchronous code.
   */
  interruptible?: boolean;
  run(
    context: CommandContext,
    args: string[],
    options: OptionValues<Options>,
  ): Promise<CommandResult<DocumentFor<Path>>>;
}

/**
 * Infers the option table and the words literally, so `run` gets `options.count: number`,
 * not `unknown`, and must return the document protocol defines for the command.
 */
export function defineCommand<
  const Options extends readonly OptionSpec[] = readonly [],
  const Path extends readonly string[] = readonly string[],
>(spec: CommandSpec<Options, Path>): CommandSpec<Options, Path> {
  return spec;
}

/** Shorthand for handlers whose text form is fixed. */
export function result<D>(
  document: D,
  text: (document: D, view: TextView) => string,
  exitCode?: ExitCode,
): CommandResult<D> {
  return exitCode === undefined ? { document, text } : { document, text, exitCode };
}
