import type { WorktreePlace } from "@united-workforce/engine";
import type { CommandContext } from "../command.js";

/** Where this machine puts threads' git worktrees: config.yaml's `worktrees.dir`, or UWF_HOME. */
export async function worktreePlace(ctx: CommandContext): Promise<WorktreePlace> {
  const config = await ctx.config();
  const dir = config.worktrees?.dir;
  return typeof dir === "string"
    ? { home: ctx.home, env: ctx.env, dir }
    : { home: ctx.home, env: ctx.env };
}
