import { fenced, marker } from "./markdown.js";

/** The adapters one can install, each with its npm package; the suite checks them against packages/. */
export const ADAPTER_PACKAGES: readonly { bin: string; pkg: string; drives: string }[] = [
  {
    bin: "uwf-mock",
    pkg: "@united-workforce/agent-mock",
    drives: "scripted answers: try workflows and test without a model",
  },
];

/** The smallest workflow, and the mock's answer for it. */
export const HELLO_WORKFLOW = `name: hello
description: One agent writes a greeting; the thread completes.
roles:
  greeter:
    goal: Greet the person named in the task.
    frontmatter:
      type: object
      properties:
        $status: { const: done }
        greeting: { type: string }
      required: [$status, greeting]
graph:
  $START:
    new: { role: greeter, prompt: "Write the greeting the task asks for." }
    resume: { role: greeter, prompt: "Write a fresh greeting." }
  greeter:
    done: { role: $END, prompt: "Greeting delivered: {{{greeting}}}" }
`;

export const HELLO_SCENARIO = `steps:
  - role: greeter
    output: { $status: done, greeting: "Hello, Ada!" }
    body: Hello, Ada! Welcome to the team.
`;

/** What the mock run must show; the suite checks the transcript for it. */
export const HELLO_GREETING = "Hello, Ada!";

export function renderBootstrap(): string {
  const packages = ["@united-workforce/cli", ...ADAPTER_PACKAGES.map((a) => a.pkg)];
  return [
    "# Installing and verifying uwf",
    "",
    "Follow these steps in order on a machine with Node.js 20 or newer and npm. Every command",
    "below must exit 0. When one does not, stop: its `error:` line says what happened and its",
    "`hint:` line what to do next.",
    "",
    "## 1. Install",
    "",
    "```sh",
    "node --version   # v20 or newer",
    `npm i -g ${packages.join(" ")}`,
    "```",
    "",
    "This installs `uwf` and these adapters (the programs that run a role's step):",
    "",
    ...ADAPTER_PACKAGES.map((a) => `- \`${a.bin}\` (\`${a.pkg}\`): ${a.drives}`),
    "",
    "An adapter that drives an agent CLI needs that CLI installed and logged in as well.",
    "",
    "## 2. Where uwf keeps its state",
    "",
    "Everything lives under `UWF_HOME` (default `~/.uwf`): `config.yaml` (agents, models,",
    "providers; written with mode 0600), `.env` (secrets handed to adapters), the store of",
    "threads and workflows, and logs. Set `UWF_HOME` to use another folder.",
    "",
    "## 3. Verify",
    "",
    "Run this script in an empty scratch folder. It checks the install, then runs a one-role",
    "workflow with `uwf-mock`, which needs no model and no network.",
    "",
    marker("verify"),
    fenced(
      "sh",
      [
        "set -eu",
        "uwf --version",
        "mkdir -p uwf-check && cd uwf-check",
        "cat > hello.yaml <<'EOF'",
        HELLO_WORKFLOW.trimEnd(),
        "EOF",
        "cat > hello-mock.yaml <<'EOF'",
        HELLO_SCENARIO.trimEnd(),
        "EOF",
        "uwf workflow validate hello.yaml",
        'thread=$(uwf thread start hello.yaml -p "Greet Ada, who joins the team today.")',
        'uwf thread exec "$thread" --agent "uwf-mock --scenario hello-mock.yaml"',
        'uwf thread show "$thread"',
        'uwf thread read "$thread"',
      ].join("\n"),
    ),
    "",
    "It passes when every command exits 0, `uwf thread show` says `completed` and the",
    `transcript shows the greeting \`${HELLO_GREETING}\`.`,
    "",
    "## Next",
    "",
    "- `uwf prompt usage`: every command, exit code and JSON document.",
    "- `uwf prompt workflow-authoring`: writing your own workflow.",
    "- `uwf prompt adapter-developing`: the adapter contract and every config key.",
  ].join("\n");
}
