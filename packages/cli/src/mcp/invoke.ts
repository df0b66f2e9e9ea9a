import type { CommandContext, CommandResult, CommandSpec } from "../commands/command.js";
import { checkArgument, optionKey, parseOptionValues } from "../commands/option-values.js";
import { resolveIds } from "../commands/resolve-ids.js";
import { COMMAND_TABLE } from "../commands/table.js";

/** A command as a tool call names it: its words, its arguments in order, its options by key. */
export interface Invocation {
  path: readonly string[];
  args: readonly string[];
  /** Keyed as the handler gets them (`maxCost` for `--max-cost`), given as a user would type. */
  options: Record<string, unknown>;
}

/** A command checked and ready to run: its arguments as the handler gets them (ids resolved). */
export interface PreparedCommand {
  args: string[];
  run(): Promise<CommandResult>;
}

/**
 * The command an invocation names, checked and parsed as `uwf <words> <args> <options>` would be
 * (the same argument checks, option parsers, defaults and id-prefix resolution), ready to run
 * its handler in `ctx`. The tool's document is then the command's `--format json` document.
 */
export async function prepareCommand(
  ctx: CommandContext,
  invocation: Invocation,
): Promise<PreparedCommand> {
  const entry = COMMAND_TABLE.find((e) => e.path.join(" ") === invocation.path.join(" "));
  if (entry === undefined) throw new Error(`no command "${invocation.path.join(" ")}"`);
  const spec: CommandSpec = (await entry.load()).default;
  const values = (spec.args ?? []).map((arg, i) => {
    const value = invocation.args[i];
    checkArgument(arg, value);
    return value === undefined ? [] : [value];
  });
  const keyed = (spec.options ?? []).map((opt) => ({ spec: opt, key: optionKey(opt) }));
  const parsed = parseOptionValues(keyed, invocation.options, Date.now());
  await resolveIds(
    spec,
    values,
    parsed,
    keyed.map(({ spec: opt, key }) => ({
      key,
      type: opt.type,
      ...(opt.type === "hash" && opt.keywords ? { keywords: opt.keywords } : {}),
    })),
    ctx.store,
  );
  const args = values.flat();
  return { args, run: () => spec.run(ctx, args, parsed as never) };
}
