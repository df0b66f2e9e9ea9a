import { docsUrl, UwfError } from "@united-workforce/util";

/**
 * Command names of upstream united-workforce that uwf spells otherwise, each with what to run
 * instead: someone following an upstream guide gets the replacement, not a "did you mean" for
 * the nearest spelling (`thread steps` is not `thread stop`). docs/coming-from-upstream.md
 * lists the same table.
 */
export const UPSTREAM_COMMANDS: readonly { upstream: string; instead: string; why?: string }[] = [
  { upstream: "thread step", instead: "uwf thread exec <thread>" },
  { upstream: "thread steps", instead: "uwf step list <thread>" },
  { upstream: "thread step-details", instead: "uwf step show <step>" },
  { upstream: "thread fork", instead: "uwf step fork <step>" },
  {
    upstream: "thread kill",
    instead: "uwf thread stop <thread>",
    why: "it stops the running exec and the thread can go on; `uwf thread cancel <thread>` also ends the thread for good",
  },
  { upstream: "thread running", instead: "uwf thread list --status running" },
  { upstream: "workflow put", instead: "uwf workflow add <file>" },
  { upstream: "thread status", instead: "uwf thread show <thread>" },
];

/** A usage error naming the replacement when `words` start with an upstream command name. */
export function checkUpstreamCommand(words: readonly string[]): void {
  const named = words.slice(0, 2).join(" ");
  const renamed = UPSTREAM_COMMANDS.find((entry) => entry.upstream === named);
  if (renamed === undefined) return;
  throw new UwfError(
    "USAGE",
    `"uwf ${named}" is upstream united-workforce's name for \`${renamed.instead}\``,
    {
      hint: `Run \`${renamed.instead}\` instead${renamed.why === undefined ? "" : ` (${renamed.why})`}; ${docsUrl("coming-from-upstream.md")} lists every renamed command.`,
    },
  );
}
