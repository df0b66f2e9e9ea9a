import { AGENT_PRESETS, agentCliInstall, PROVIDER_PRESETS } from "../../setup/presets.js";
import { fenced, marker } from "./markdown.js";

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

const TASK = "Greet Ada, who joins the team today.";

/** The repository `npm run install-cli` installs from until the packages are published. */
const REPOSITORY = "https://github.com/united-workforce/uwf.git";

/** The install command of the mock adapter, from the same table `uwf setup` hints from. */
function mockInstall(): string {
  const mock = AGENT_PRESETS.find((a) => a.command === "uwf-mock");
  if (!mock) throw new Error("uwf setup has no agent preset for uwf-mock");
  return mock.install.replace("npm i -g ", "");
}

export function renderBootstrap(): string {
  // Long by design: the guide's text, one line per array item, in the order it is read.
  const agents = AGENT_PRESETS.filter((a) => a.command !== "uwf-mock");
  const builtin = agents.find((a) => a.command === "uwf-builtin");
  return [
    "# Installing and verifying uwf",
    "",
    "Follow these steps in order on a machine with Node.js 20 or newer, npm and git. Every",
    "command below must exit 0 unless it says otherwise. When one does not, stop: its `error:`",
    "line says what happened and its `hint:` line what to do next.",
    "",
    "## 1. Install",
    "",
    "uwf's packages are not on the npm registry yet: install them from a checkout of its",
    "repository, packed as they will be published.",
    "",
    "```sh",
    "node --version   # v20 or newer",
    `git clone ${REPOSITORY}`,
    "cd uwf",
    "npm run setup         # installs its dependencies, builds, and runs a demo thread",
    "npm run install-cli   # installs the CLI and every adapter globally (npm install -g)",
    "```",
    "",
    "`npm run install-cli` installs `uwf`, `uwf-mock` (an adapter that replays scripted",
    "answers: no model, no network) and the adapters of real agents, and ends by saying where",
    "`uwf` is and whether PATH finds it; when it does not, add the folder it names to PATH.",
    "When npm's global prefix is not writable, install under your home instead:",
    '`npm_config_prefix="$HOME/.local" npm run install-cli` (then `$HOME/.local/bin` must be on',
    "PATH). Once the packages are published,",
    `\`npm i -g @united-workforce/cli ${mockInstall()}\` installs \`uwf\` and \`uwf-mock\``,
    "without a checkout.",
    "",
    "A real agent also needs the agent CLI its adapter drives, installed and logged in; install",
    "the ones you will use:",
    "",
    "| `--agent` | agent | install |",
    "| --- | --- | --- |",
    ...agents.map((a) => {
      const install = agentCliInstall(a.install);
      return `| \`${a.alias}\` | ${a.label} | ${install ? `\`${install}\`` : "nothing more"} |`;
    }),
    "",
    "## 2. Configure",
    "",
    "Everything uwf keeps lives under `UWF_HOME` (default `~/.uwf`): `config.yaml` (providers,",
    "models, agents; mode 0600), `.env` (secrets handed to adapters, never printed), the store",
    "of threads and workflows, and logs. `uwf setup` writes `config.yaml`: without flags on a",
    "terminal it asks; a script or an agent passes flags:",
    "",
    "```sh",
    "uwf setup --provider openrouter --model anthropic/claude-sonnet-4.5 --agent builtin",
    "```",
    "",
    "- `--provider`: a preset below, which fills the base URL, the API and the variable the key",
    "  is read from; or a name of your own with `--base-url <url>` (and `--api <api>` when it",
    "  is not OpenAI-compatible chat).",
    "- The key: export it (or put it in `$UWF_HOME/.env`) under the preset's variable, or name",
    "  another one with `--api-key-env <var>`. `--api-key <key>` stores it in config.yaml, but",
    "  it stays in your shell history.",
    "- `--model <name>`: the model's name at the provider; `--agent <preset>`: one of the",
    `  agents above${builtin ? ` (\`${builtin.alias}\` needs only the model)` : ""}, an alias, or any command.`,
    "",
    "| `--provider` | provider | key variable |",
    "| --- | --- | --- |",
    ...PROVIDER_PRESETS.map(
      (p) => `| \`${p.name}\` | ${p.label} | ${p.apiKeyEnv ? `\`${p.apiKeyEnv}\`` : "none"} |`,
    ),
    "",
    "`uwf setup` asks the model for one token and looks for the adapter and its agent CLI on",
    "PATH, and prints `Config saved to <path> ✓`. It saves even when a check fails (then it",
    "exits 1 and says what to fix). `uwf config list` shows the result, secrets masked;",
    "`uwf config set <key> <value>` changes one key. Skip this step if you have no model yet:",
    "the first check below needs none.",
    "",
    "## 3. Verify the install",
    "",
    "Run this script in an empty scratch folder. `uwf doctor` checks Node, config.yaml, each",
    "configured agent and each provider, one line each, and exits 1 when any check fails. Then",
    "a one-role workflow runs with `uwf-mock`.",
    "",
    marker("verify"),
    fenced(
      "sh",
      [
        "set -eu",
        "uwf --version",
        "uwf doctor",
        "mkdir -p uwf-check && cd uwf-check",
        "cat > hello.yaml <<'EOF'",
        HELLO_WORKFLOW.trimEnd(),
        "EOF",
        "cat > hello-mock.yaml <<'EOF'",
        HELLO_SCENARIO.trimEnd(),
        "EOF",
        "uwf workflow validate hello.yaml",
        `thread=$(uwf thread start hello.yaml -p "${TASK}")`,
        'uwf thread exec "$thread" --agent "uwf-mock --scenario hello-mock.yaml"',
        'uwf thread show "$thread"',
        'uwf thread read "$thread"',
      ].join("\n"),
    ),
    "",
    "It passes when every command exits 0, `uwf thread show` says `completed` and the",
    `transcript shows the greeting \`${HELLO_GREETING}\`.`,
    "",
    "## 4. Verify the model",
    "",
    "After step 2, run the same workflow with the agent and model `uwf setup` configured (its",
    "default agent), from the same scratch folder:",
    "",
    marker("verify-model"),
    fenced(
      "sh",
      [
        "set -eu",
        "cd uwf-check",
        `thread=$(uwf thread start hello.yaml -p "${TASK}")`,
        'uwf thread exec "$thread"',
        'uwf thread show "$thread"',
      ].join("\n"),
    ),
    "",
    "It passes when `uwf thread show` says `completed`. Exit 4 means the agent failed: the",
    "thread is suspended and `uwf thread show` gives the reason (a key, a model name, a",
    "missing agent CLI); fix it and run `uwf doctor`, then `uwf thread resume <thread>`.",
    "",
    "## Next",
    "",
    "- `uwf prompt usage`: every command, exit code and JSON document.",
    "- `uwf prompt workflow-authoring`: writing your own workflow.",
    "- `uwf prompt adapter-developing`: the adapter contract and every config key.",
    "- `uwf mcp`: the same workflows and threads as tools of an MCP client, for an agent to",
    "  drive: give Claude Code or Codex an MCP server named uwf that runs `uwf mcp`.",
  ].join("\n");
}
