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
