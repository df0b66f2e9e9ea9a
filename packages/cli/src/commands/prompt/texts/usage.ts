import { type DocumentName, documentSchemas } from "@united-workforce/protocol";
import { argumentLabel, valueNote } from "../../../commands/option-values.js";
import { GLOBAL_OPTIONS, GROUP_SUMMARIES } from "../../../help/globals.js";
import { ERRORS_SENTENCE, exitCodeRows, publicCommands } from "../../../help/reference.js";
import type { CommandSpec, OptionSpec } from "../../command.js";

/**
 * `uwf prompt usage`: how to drive uwf from a terminal, a script or a coding agent. The
 * command reference, the exit codes and the JSON keys come from the command table and
 * protocol, so the guide names only commands and options that exist.
 */
export function renderUsage(commands: readonly CommandSpec[]): string {
  return [
    "# Driving uwf",
    "",
    "uwf runs multi-role agent workflows one step per call: there is no daemon. A **workflow**",
    "(YAML) names roles and routes between them on each answer's `$status`; a **thread** is one",
    "run of it. Every call reads the thread's state from the store under `UWF_HOME` (default",
    "`~/.uwf`), does its work and exits, so any process can pick a thread up where another left it.",
    "",
    "## A run from start to end",
    "",
    "```sh",
    "uwf workflow validate review.yaml        # every problem at once; exit 3 when invalid",
    'thread=$(uwf thread start review.yaml -p "Review the README")   # prints the thread id',
    'uwf thread exec "$thread" -c 20          # runs up to 20 steps, stops when done or suspended',
    'uwf thread show "$thread"                # status, current role, usage',
    'uwf thread read "$thread"                # the transcript as markdown',
    "```",
    "",
    "- `uwf thread exec` stops early when the thread completes, suspends or is stopped, and says",
    "  why. Exit 4 means the agent failed and the thread is suspended with the reason: fix the",
    '  cause, then `uwf thread resume "$thread"`.',
    "- A role may suspend the thread with a question for a human (exit 0, status `suspended`):",
    '  answer it with `uwf thread resume "$thread" -p "<answer>" -c 20`, which goes on from there.',
    "- The agent for a step comes from `--agent <alias|command>` (a configured alias, else a",
    "  command run without a shell), else `agentOverrides` and `defaultAgent` in config.yaml.",
    "  `uwf prompt adapter-developing` lists every config key.",
    "- `uwf workflow add <file>` registers a workflow under its name, so later commands can say",
    "  `review` instead of a path. A thread keeps the workflow version it started with.",
    '- `uwf thread verify "$thread"` (or `--all`) proves a thread\'s history: every node re-hashed,',
    "  links, schemas and routes checked; exit 1 naming the first bad node.",
    '- `uwf thread export "$thread" -o run.uwf-bundle` writes one self-contained file; `uwf thread',
    "  import run.uwf-bundle` verifies it completely before it writes anything, into any store.",
    "- `uwf workflow test <workflow> --from <thread|bundle>` re-runs recorded threads through the",
    "  workflow with `uwf-replay` (each agent step answered by the recorded step with the same",
    "  assembled prompt; no model called), in a scratch store: same route, a different route (the",
    "  step and the edge), or a miss (the role, the nearest recorded prompt); exit 1 unless every",
    "  route is the same, so CI can test workflow edits.",
    '- `uwf thread reroute "$thread" -w <new.yaml>` routes the recorded outputs through another',
    "  workflow version without any agent or write: the first step whose route changes, with the",
    "  new edge prompt, and every output that no longer validates; exit 1 when anything changes.",
    '- `uwf thread rebase "$thread" -w <new.yaml>` re-runs the thread under the edited workflow:',
    "  steps whose role and edge prompt are unchanged are reused (no agent runs), and a new thread",
    "  runs on from the first that changed (`--dry-run` says which; the old thread is kept).",
    "- `uwf thread grep <pattern>` searches the outputs, bodies and prompts of every thread",
    "  (`--thread`, `--in`, `-i`, `-F`); exit 1 when nothing matches, like grep.",
    "- Thread ids and hashes may be typed in any case and shortened to any unique prefix of 4 or",
    "  more characters, as git takes commit hashes; an ambiguous one fails (exit 2) listing the",
    "  candidates. Scripts should keep the whole ids the documents give.",
    "- On a terminal, lists are aligned tables with relative times; piped, they print plain lines.",
    "  `uwf completion bash|zsh|fish` prints a shell completion script.",
    "",
    "## Scripts and agents",
    "",
    "- Add `--format json` (or `yaml`) to any command to get its document on stdout; text output",
    "  is for people and may change. Progress and agent output go to stderr.",
    `- ${ERRORS_SENTENCE}`,
    "- Decide on the exit code, not on the text. Nothing asks a question unless stdin is a terminal.",
    "",
    "| code | meaning |",
    "| --- | --- |",
    ...exitCodeRows(),
    "",
    "## JSON documents",
    "",
    "Top-level keys of each command's `--format json` document. Keys are stable: more may be",
    "added, none renamed. Times are ISO 8601 UTC strings, durations milliseconds.",
    "",
    ...publicCommands(commands).map(
      (spec) => `- \`uwf ${spec.path.join(" ")}\` → ${documentKeys(spec.path.join(" "))}`,
    ),
    `- errors (stderr) → ${documentKeys("error")}`,
    "",
    "## Commands",
    "",
    `Global options: ${GLOBAL_OPTIONS.map((o) => `\`${o.flags}\` ${o.description}`).join("; ")}.`,
    "Placeholders: `<x>` is required, `[x]` optional, `x...` may repeat.",
    ...commandReference(commands),
  ].join("\n");
}

function commandReference(commands: readonly CommandSpec[]): string[] {
  const out: string[] = [];
  let group = "";
  for (const spec of publicCommands(commands)) {
    const [first] = spec.path;
    if (first !== group) {
      group = first!;
      // A command of one word (`uwf setup`) is its own group, with no summary of its own.
      const summary = GROUP_SUMMARIES[group];
      out.push("", summary === undefined ? `### uwf ${group}` : `### uwf ${group}: ${summary}`, "");
    }
    out.push(`- \`${synopsis(spec)}\`: ${spec.summary}`);
    for (const option of visibleOptions(spec)) {
      const note = valueNote(option);
      out.push(`  - \`${option.flags}\`: ${option.description}${note ? ` (${note})` : ""}`);
    }
  }
  return out;
}

/** `uwf thread start <workflow> -p <text> [--cwd <dir>]`: required options shown as such. */
function synopsis(spec: CommandSpec): string {
  const options = visibleOptions(spec).map((option) => {
    const flag = shortest(option.flags);
    return option.type === "string" && option.required ? flag : `[${flag}]`;
  });
  return ["uwf", ...spec.path, ...(spec.args ?? []).map(argumentLabel), ...options].join(" ");
}

/** `-c, --count <n>` → `-c <n>`; `--background` stays. */
function shortest(flags: string): string {
  const [names, value] = flags.split(/ (?=<)/);
  const first = names!.split(", ")[0]!;
  return value ? `${first} ${value}` : first;
}

function visibleOptions(spec: CommandSpec): OptionSpec[] {
  return (spec.options ?? []).filter((o) => !o.hidden);
}

function documentKeys(name: string): string {
  const schema = documentSchemas()[name as DocumentName] as { properties?: object } | undefined;
  if (!schema?.properties) throw new Error(`no document schema for "${name}"`);
  return `\`{ ${Object.keys(schema.properties).join(", ")} }\``;
}
