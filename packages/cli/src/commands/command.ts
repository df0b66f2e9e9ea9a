import type { Store, UwfConfig } from "@united-workforce/store";
import type { Logger } from "@united-workforce/util";

export type OutputFormat = "text" | "json" | "yaml";

/** What every handler gets: resolved once by the entry, so handlers never read the environment. */
export interface CommandContext {
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
  format: OutputFormat;
  logger: Logger;
  /** Progress for humans (adapter stderr, notices). Never the command's result. */
  progress(text: string): void;
  /** Aborted on SIGINT/SIGTERM so long handlers can stop their children and clean up. */
  signal: AbortSignal;
  /** How to start this same CLI again (node + script), for background workers. */
  self: readonly string[];
  /** config.yaml, read on first use (`{}` when there is none). */
  config(): Promise<UwfConfig>;
  /** The store (config.yaml's `store:` or UWF_STORE say which), opened on first use. */
  store(): Promise<Store>;
}

export interface ArgumentSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface OptionSpec {
  /** Commander flags, e.g. "-c, --count <n>". */
  flags: string;
  description: string;
  default?: string | boolean;
  /** Allowed values, listed in help and checked before the handler runs. */
  choices?: readonly string[];
  /** Internal options (e.g. the background worker's) stay out of help and docs. */
  hidden?: boolean;
}

/** A command's result: a JSON-able document plus how to show it to a person. */
export interface CommandResult<D = unknown> {
  document: D;
  text: (document: D) => string;
  /** Exit code for a result that is not a failure but is not plain success either. */
  exitCode?: number;
}

export interface CommandSpec {
  /** Words after `uwf`, e.g. ["thread", "exec"]. */
  path: readonly string[];
  summary: string;
  description?: string;
  args?: readonly ArgumentSpec[];
  options?: readonly OptionSpec[];
  examples?: readonly string[];
  /** Hidden commands (internal workers) are left out of help, docs and prompts. */
  hidden?: boolean;
  run(
    context: CommandContext,
    args: string[],
    options: Record<string, unknown>,
  ): Promise<CommandResult>;
}

export function defineCommand(spec: CommandSpec): CommandSpec {
  return spec;
}

/** Shorthand for handlers whose text form is fixed. */
export function result<D>(
  document: D,
  text: (document: D) => string,
  exitCode?: number,
): CommandResult {
  return exitCode === undefined
    ? { document, text: text as (d: unknown) => string }
    : { document, text: text as (d: unknown) => string, exitCode };
}
