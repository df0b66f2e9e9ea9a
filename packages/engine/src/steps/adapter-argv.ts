import type { ResolvedAgent } from "@united-workforce/store";
import type { PlannedStep } from "./planned-step.js";

/**
 * Edge prompts longer than this go through the adapter's stdin (`--prompt -`): Linux refuses
 * an argument over 128 KiB (MAX_ARG_STRLEN), and argv and the environment share 2 MiB or so.
 * Shorter ones stay in argv, where every adapter, old or third-party, reads them.
 */
export const PROMPT_ARG_LIMIT = 64 * 1024;

/**
 * The adapter's command-line arguments for one step (docs/adapter-protocol.md), and the text
 * to write to its stdin when the prompt goes there instead (null: stdin stays closed).
 */
export function adapterArgv(
  agent: Pick<ResolvedAgent, "args" | "model">,
  thread: string,
  plan: Pick<PlannedStep, "role" | "prompt" | "replaceHead">,
): { args: string[]; stdin: string | null } {
  // A prompt that is exactly "-" would read as "take it from stdin": send it that way too.
  const viaStdin = plan.prompt === "-" || Buffer.byteLength(plan.prompt) > PROMPT_ARG_LIMIT;
  const args = [...agent.args];
  if (agent.model !== null) args.push("--model", agent.model);
  args.push("--thread", thread, "--role", plan.role, "--prompt", viaStdin ? "-" : plan.prompt);
  if (plan.replaceHead) args.push("--replace-head");
  return { args, stdin: viaStdin ? plan.prompt : null };
}
