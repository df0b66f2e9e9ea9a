import { DEFAULT_TIMEOUT_SECONDS } from "@united-workforce/engine";
import {
  ExitCode,
  STATUS_FIELD,
  SUSPEND,
  stepSchema,
  USAGE_FIELDS,
} from "@united-workforce/protocol";
import { configKeys } from "./config-keys.js";
import { fenced, marker } from "./markdown.js";

/**
 * A whole adapter over any OpenAI-compatible chat endpoint. The suite runs it, exactly as
 * printed, against the fake model server: a thread completes through it, and an answer without
 * frontmatter is repaired in the same conversation.
 */
export const EXAMPLE_ADAPTER = `#!/usr/bin/env node
import { createAgent } from "@united-workforce/agent-kit";

// One chat request; the conversation so far is the session a correction continues.
async function chat(ctx, messages) {
  const response = await fetch(\`\${ctx.env.MY_AGENT_BASE_URL}/chat/completions\`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: \`Bearer \${ctx.env.MY_AGENT_API_KEY}\`,
    },
    body: JSON.stringify({ model: ctx.env.MY_AGENT_MODEL, messages }),
    signal: ctx.signal,
  });
  if (!response.ok) throw new Error(\`the model answered HTTP \${response.status}\`);
  const reply = await response.json();
  const text = reply.choices[0].message.content;
  return {
    text,
    usage: {
      inputTokens: reply.usage?.prompt_tokens ?? null,
      outputTokens: reply.usage?.completion_tokens ?? null,
    },
    detail: { model: reply.model ?? null },
    session: [...messages, { role: "assistant", content: text }],
  };
}

const agent = createAgent({
  name: "my-adapter",
  run: (ctx) => chat(ctx, [{ role: "user", content: ctx.prompt }]),
  continue: (ctx, session, correction) =>
    chat(ctx, [...session, { role: "user", content: correction }]),
});

process.exitCode = await agent(process.argv.slice(2));
`;

/** Registering the adapter; the suite checks every key against the config schema. */
export const EXAMPLE_CONFIG = `agents:
  mine:
    command: node
    args: [/home/me/my-adapter/my-adapter.mjs]
    timeoutSeconds: 600
defaultAgent: mine
agentOverrides:
  draft-review:
    reviewer: mine
`;

export function renderAdapterDeveloping(): string {
  // Long by design: the guide's text, one line per array item, in the order it is read.
  return [
    "# Writing a uwf adapter",
    "",
    "An **adapter** is the program `uwf thread exec` runs for one step of one role. It runs",
    "an agent (a model, an agent CLI, a person), stores the step in uwf's store and prints the",
    "step's hash. Any executable that keeps this contract works; `@united-workforce/agent-kit`",
    "keeps it for you, so an adapter only says how to talk to its agent.",
    "",
    "## How uwf runs an adapter",
    "",
    "```",
    "<command> [...args] [--model <alias>] --thread <thread-id> --role <role> --prompt <edge prompt> [--replace-head]",
    "```",
    "",
    "- `command` and `args` come from the agent chosen for the step: `--agent <alias|command>`,",
    "  else the agent the thread remembers from its last `--agent`, else",
    "  `agentOverrides.<workflow>.<role>`, else `defaultAgent` (aliases are `agents.<alias>` in",
    "  config.yaml). There is **no shell**: the command is looked up on PATH.",
    "- `--model <alias>` comes from the agent's `model` (`agents.<alias>.model`): a `models`",
    "  alias whose provider the adapter points its agent at.",
    "- An edge prompt over 64 KiB arrives as `--prompt -`: read it from stdin.",
    "- `--replace-head` (from `uwf thread poke`): the new step replaces the head step, so its",
    "  `prev` is the head's own `prev`.",
    "- The working directory is the edge's `location`, else the thread's cwd.",
    "- The environment is uwf's own plus `$UWF_HOME/.env` (never overriding what is set), plus",
    "  the agent's `env`, with `UWF_HOME` set. Keep secrets in `.env`, not in argv.",
    "- The adapter runs in its own process group. On timeout (`agents.<alias>.timeoutSeconds`,",
    `  default ${DEFAULT_TIMEOUT_SECONDS} s), \`uwf thread stop\`, \`uwf thread cancel\` or Ctrl-C, the`,
    "  whole group gets SIGTERM, then SIGKILL.",
    "- stderr is shown to the user as progress (its tail is kept for error messages).",
    "- stdout: only the **last non-empty line** counts; it must be the result line below.",
    "",
    "## What an adapter must do",
    "",
    "1. Read the thread from the store (read only): the head, the task, the workflow, the",
    "   role's output schema and what happened since the role last ran.",
    "2. Run the agent; its answer is markdown that starts with YAML frontmatter valid against",
    `   the role's schema (\`${STATUS_FIELD}\` names the exit), or \`${STATUS_FIELD}: ${SUSPEND}\``,
    "   with a `reason` to ask a human.",
    "3. Store the output, the body, a detail node, the assembled prompt and a StepNode",
    `   \`{ ${stepSchema.required.join(", ")} }\`. \`usage\` holds`,
    `   \`${USAGE_FIELDS.join("`, `")}\`; what the agent did not report is \`null\`, never 0.`,
    '4. Print the result line last: `{"stepHash":"<13 chars>","role":"…","status":"…","attempts":1}`.',
    `5. Exit ${ExitCode.ok}. Never move the thread's head: uwf does, after verifying the step.`,
    "",
    "uwf verifies before it moves the head: the hash names a StepNode whose `start` is the",
    "thread's, whose `prev` is the head the exec started from, whose `role` is the routed role",
    "and whose output validates against that role's schema. Anything else (a missing binary, a",
    "non-zero exit, a timeout, a bad last line, a step that fails verification) leaves the head",
    `where it was, suspends the thread with the reason and makes \`uwf thread exec\` exit ${ExitCode.agentFailed};`,
    "`uwf thread resume <thread>` retries the step. Exit with",
    `${ExitCode.usage} for bad argv and ${ExitCode.invalid} when the agent's answer cannot be made valid.`,
    "",
    "## With agent-kit",
    "",
    "`npm i @united-workforce/agent-kit`. `createAgent({ name, run, continue })` parses the",
    "argv, loads `.env`, reads the thread, composes the prompt (the output-format instruction",
    "for the role's statuses, the role's sections, `## Task`, what happened since the role last",
    "ran, `## Moderator Instruction`), calls `run`, extracts and validates the frontmatter,",
    "asks for corrections through `continue` (up to 2), stores the step and prints the line.",
    "",
    "- `run(ctx)` gets `ctx.prompt` (give this to the agent), `ctx.cwd`, `ctx.env`, `ctx.signal`",
    "  (aborted when uwf stops the step), `ctx.role`, `ctx.thread` and `ctx.resumeSession` (the",
    "  session this role used on its previous visit, to resume it).",
    "- It returns `{ text, usage, detail, session }`: the answer, the usage figures it knows,",
    "  what to keep in the detail node (`model`, `sessionId`, `turns`), and any state `continue`",
    "  needs.",
    "- `continue(ctx, session, correction)` sends a correction in the same conversation.",
    "- `--history-quota <chars>` (in `agents.<alias>.args`) changes how many characters of",
    "  earlier steps the prompt may hold (default 20,000).",
    "- `--model`, `--prompt -` and `--replace-head` are handled for you (`ctx.model`).",
    "- Throwing fails the step (exit 1); the thread suspends with the message.",
    "",
    "A complete adapter for any OpenAI-compatible chat endpoint, `my-adapter.mjs`:",
    "",
    marker("file my-adapter.mjs"),
    fenced("js", EXAMPLE_ADAPTER),
    "",
    "Put `MY_AGENT_BASE_URL` (e.g. `https://api.openai.com/v1`), `MY_AGENT_API_KEY` and",
    "`MY_AGENT_MODEL` in `$UWF_HOME/.env`, then try it on a thread:",
    "",
    "```sh",
    'uwf thread exec "$thread" --agent "node $PWD/my-adapter.mjs"',
    "```",
    "",
    "## Registering it in config.yaml",
    "",
    marker("file config.yaml"),
    fenced("yaml", EXAMPLE_CONFIG),
    "",
    "Every key of `$UWF_HOME/config.yaml`:",
    "",
    "| key | type | meaning |",
    "| --- | --- | --- |",
    ...configKeys().map(
      (key) =>
        `| \`${key.path}\` | ${key.type}${key.required ? ", required" : ""} | ${key.description} |`,
    ),
    "",
    "## Testing an adapter",
    "",
    "Run it on a real thread in a scratch `UWF_HOME` (`export UWF_HOME=$(mktemp -d)`), with a",
    "workflow whose roles exercise each exit: `uwf thread exec` must complete the thread, and",
    "`uwf step show <hash>` shows what was stored. `uwf-mock --help` shows the argv every",
    "agent-kit adapter accepts; `uwf prompt workflow-authoring` has a small workflow to start",
    "from.",
  ].join("\n");
}
