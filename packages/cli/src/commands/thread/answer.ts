import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AnswerDocument } from "@united-workforce/engine";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { openRunner } from "./shared.js";

export default defineCommand({
  path: ["thread", "answer"],
  summary: "answer a thread that waits for a human role (agent: human) and route on",
  description:
    "The answer is validated against the role's frontmatter schema (nothing is written when it does not fit) and stored as the role's step, like an agent's, recorded as answered by you. The thread then routes on its $status edges; run `uwf thread exec` to continue.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "--status <status>",
      type: "string",
      description: "the answer's $status (one of the role's statuses)",
    },
    {
      flags: "--set <key=value>",
      type: "string",
      repeatable: true,
      description:
        "a field of the answer, typed by the role's schema (text for a string field, else read as YAML: 3, true, [a, b])",
    },
    {
      flags: "-f, --file <path>",
      type: "string",
      description:
        "the answer as a YAML or JSON mapping, or markdown with YAML frontmatter (its text becomes the body); --status and --set override it",
    },
    {
      flags: "-m, --body <markdown>",
      type: "string",
      description: "markdown body of the step (default: the file's, else empty)",
    },
    {
      flags: "--by <name>",
      type: "string",
      description: "who answered, recorded in the step's detail (default: $USER)",
    },
  ],
  examples: [
    'uwf thread answer 01JD… --status rejected --set reason="Mention the migration guide."',
    "uwf thread answer 01JD… -f answer.yaml",
  ],
  async run(ctx, [thread], options) {
    const { parseAnswerFile } = await import("@united-workforce/engine");
    const sets = options.set.map(splitSet);
    let values: Record<string, unknown> | undefined;
    let fileBody: string | undefined;
    if (options.file !== undefined) {
      const path = resolve(ctx.cwd, options.file);
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch (error) {
        throw new UwfError("USAGE", `cannot read the answer file "${options.file}"`, {
          hint: "Pass the path of a YAML, JSON or markdown file with the answer.",
          cause: error,
        });
      }
      const parsed = parseAnswerFile(text, options.file);
      values = parsed.values;
      fileBody = parsed.body ?? undefined;
    }
    if (options.status === undefined && values === undefined) {
      throw new UwfError("USAGE", "an answer needs a status: pass --status or -f <file>", {
        hint: `See what the role accepts with: uwf thread show ${thread}`,
      });
    }
    const runner = await openRunner(ctx, { moves: true });
    const doc = await runner.answer(thread!, {
      status: options.status,
      sets,
      ...(values ? { values } : {}),
      body: options.body ?? fileBody ?? "",
      by: options.by ?? ctx.env.USER ?? ctx.env.LOGNAME ?? "unknown",
    });
    return result(doc, renderAnswer);
  },
});

function splitSet(pair: string): [string, string] {
  const at = pair.indexOf("=");
  if (at <= 0) {
    throw new UwfError("USAGE", `--set "${pair}" is not key=value`, {
      hint: 'Write each field as --set name=value, e.g. --set reason="Looks good."',
    });
  }
  return [pair.slice(0, at), pair.slice(at + 1)];
}

function renderAnswer(doc: AnswerDocument): string {
  const s = doc.step;
  return [
    `✓ ${s.role} → ${s.status}  ${s.hash}  (${s.agent})`,
    `${doc.thread}: ${doc.status} — ${doc.message}`,
  ].join("\n");
}
