import type { ConfigFile } from "@united-workforce/store";
import { isUwfError } from "@united-workforce/util";
import { configWarning } from "../../output/config-warning.js";
import type { CommandContext } from "../command.js";

/**
 * `config list` and `get` show a config even when uwf would refuse it (so a mistake can be
 * seen and fixed): its problems go to stderr, each naming the key and the file.
 */
export async function reportConfigProblems(
  ctx: CommandContext,
  file: string,
  data: Record<string, unknown>,
): Promise<void> {
  const { checkConfig } = await import("@united-workforce/store");
  const { errors, warnings } = checkConfig(data);
  for (const error of errors) {
    ctx.progress(`error: ${error} in ${file} (uwf refuses this config until it is fixed)`);
  }
  reportWarnings(ctx, file, warnings);
}

export function reportWarnings(ctx: CommandContext, file: string, warnings: string[]): void {
  for (const warning of warnings) ctx.progress(configWarning(warning, file));
}

/**
 * The problems a refused change brought, or null when `error` is no refusal of a config or
 * names only problems the file had `before` the change: then the file is what needs fixing,
 * and the store's error already says so.
 */
export function problemsOfChange(error: unknown, before: readonly string[]): string[] | null {
  if (!isUwfError(error) || error.code !== "CONFIG_INVALID") return null;
  const errors = (error.details?.errors ?? []) as string[];
  const added = errors.filter((problem) => !before.includes(problem));
  return added.length > 0 ? added : null;
}

/**
 * Save a changed config.yaml, or refuse the change and write nothing: a save that finds problems
 * the file did not have `before` the change throws `refuse(those problems)`, the command's own
 * error (the value, the removal or the flag is what is wrong, not the file). Returns the
 * config's warnings.
 */
export async function saveChange(
  config: ConfigFile,
  before: readonly string[],
  refuse: (problems: string[]) => Error,
): Promise<string[]> {
  const { saveConfigFile } = await import("@united-workforce/store");
  try {
    return saveConfigFile(config).warnings;
  } catch (error) {
    const problems = problemsOfChange(error, before);
    if (problems === null) throw error;
    throw refuse(problems);
  }
}
