import { ExitCode, type ThreadGrepDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

const SCOPES = ["outputs", "bodies", "prompts"] as const;
type Scope = (typeof SCOPES)[number];

export default defineCommand({
  path: ["thread", "grep"],
  summary:
    "search the outputs, bodies and prompts of every thread (or one) for a pattern (exit 1 if none matches)",
  description:
    "The pattern is a JavaScript regular expression, matched line by line (outputs as YAML); --fixed-strings takes it literally. Each node is read once, however many steps and forks share it; a step that forks share is listed once, under the first thread that reaches it. Exits 0 when a line matches and 1 when none does, like grep.",
  args: [{ name: "pattern", description: "a regular expression (or text, with -F)" }],
  options: [
    { flags: "--thread <thread>", type: "thread", description: "search this thread only" },
    {
      flags: "--in <where>",
      type: "string",
      default: SCOPES.join(","),
      description: "what to search, comma-separated: outputs, bodies, prompts",
    },
    { flags: "-i, --ignore-case", type: "boolean", description: "ignore upper/lower case" },
    {
      flags: "-F, --fixed-strings",
      type: "boolean",
      description: "the pattern is plain text, not a regular expression",
    },
  ],
  examples: [
    "uwf thread grep 'rate limit'",
    "uwf thread grep -i 'error|failed' --in outputs,bodies",
    "uwf thread grep -F '$status: rejected' --thread 01JD… --format json",
  ],
  async run(ctx, [pattern], options) {
    const scopes = parseScopes(options.in ?? SCOPES.join(","));
    const { grepMatcher, grepThreads } = await import("@united-workforce/engine");
    const fixedStrings = options.fixedStrings === true;
    const ignoreCase = options.ignoreCase === true;
    const matches = await grepMatcher(pattern!, { fixedStrings, ignoreCase });
    const store = await ctx.store();
    const found = await grepThreads(store, {
      threads: options.thread === undefined ? undefined : [options.thread],
      in: scopes,
      matches,
    });
    const doc: ThreadGrepDocument = {
      pattern: pattern!,
      fixedStrings,
      ignoreCase,
      linear: matches.linear,
      in: scopes,
      ...found,
    };
    return result(doc, renderGrep, doc.matches.length > 0 ? ExitCode.ok : ExitCode.error);
  },
});

function parseScopes(text: string): Scope[] {
  const scopes: Scope[] = [];
  for (const word of text.split(",").map((w) => w.trim())) {
    if (!(SCOPES as readonly string[]).includes(word)) {
      throw new UwfError("USAGE", `--in: unknown place "${word}"`, {
        hint: `use a comma-separated list of ${SCOPES.join(", ")}`,
      });
    }
    if (!scopes.includes(word as Scope)) scopes.push(word as Scope);
  }
  return scopes;
}

/** One line per matching line, grep-like: thread, step, role, hash, where:line: text. */
function renderGrep(doc: ThreadGrepDocument): string {
  if (doc.matches.length === 0) {
    return `no match in ${doc.steps} step${doc.steps === 1 ? "" : "s"} of ${doc.threads} thread${doc.threads === 1 ? "" : "s"}`;
  }
  const lines: string[] = [];
  for (const match of doc.matches) {
    for (const line of match.lines) {
      const text = line.text.length > 300 ? `${line.text.slice(0, 300)}…` : line.text;
      lines.push(
        `${match.thread} step ${match.step} ${match.role} ${match.hash} ${match.in}:${line.line}: ${text}`,
      );
    }
  }
  return lines.join("\n");
}
