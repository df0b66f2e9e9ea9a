import { END, START, START_STATUSES, STATUS_FIELD, SUSPEND } from "@united-workforce/protocol";
import { fenced, marker } from "./markdown.js";

/**
 * A small complete workflow: a loop, a `oneOf` schema, a `$SUSPEND` exit and a mustache
 * section. The suite validates it with the real `uwf workflow validate` and runs it with the
 * mock scenario below, so the guide's example always works.
 */
export const EXAMPLE_WORKFLOW = `name: draft-review
description: A writer drafts, a reviewer approves or sends it back.
roles:
  writer:
    description: Writes or revises the text the task asks for.
    goal: Write the text the task asks for, in plain words.
    procedure: |
      1. Read the task and any review comments.
      2. Write or revise the draft.
    output: The full draft in the body; a one-line summary in frontmatter.
    frontmatter:
      oneOf:
        - properties:
            $status: { const: drafted }
            summary: { type: string }
          required: [$status, summary]
        - properties:
            $status: { const: unclear }
            question: { type: string }
          required: [$status, question]
  reviewer:
    goal: Decide whether the draft does what the task asks.
    frontmatter:
      required: [$status]
      oneOf:
        - properties:
            $status: { const: approved }
        - properties:
            $status: { const: rejected }
            comments:
              type: array
              items: { type: string }
          required: [comments]
graph:
  $START:
    new: { role: writer, prompt: "Write the first draft." }
    resume: { role: writer, prompt: "Revise the last draft with the new instructions." }
  writer:
    drafted: { role: reviewer, prompt: "Review this draft: {{{summary}}}" }
    unclear: { role: $SUSPEND, prompt: "The writer asks: {{{question}}}" }
  reviewer:
    approved: { role: $END, prompt: "Approved." }
    rejected:
      role: writer
      prompt: |
        Revise the draft. Review comments:
        {{#comments}}
        - {{{.}}}
        {{/comments}}
`;

/** Answers for the example, for `uwf-mock`: a rejection, a revision, an approval. */
export const EXAMPLE_SCENARIO = `steps:
  - role: writer
    output: { $status: drafted, summary: "A two-line welcome note." }
    body: "Welcome, Ada."
  - role: reviewer
    output: { $status: rejected, comments: ["Say what team she joins."] }
  - role: writer
    output: { $status: drafted, summary: "The note now names the team." }
    body: "Welcome to the platform team, Ada."
  - role: reviewer
    output: { $status: approved }
`;

export function renderWorkflowAuthoring(): string {
  // Long by design: the guide's text, one line per array item, in the order it is read.
  const [fresh, resume] = START_STATUSES;
  return [
    "# Writing a uwf workflow",
    "",
    "A workflow is one YAML file: **roles** (what each agent does and the JSON Schema of the",
    `frontmatter it answers with) and a **graph** that routes on the \`${STATUS_FIELD}\` field of`,
    "each answer. uwf never asks a model where to go next: the graph decides.",
    "",
    "## A complete example",
    "",
    "`draft-review.yaml`:",
    "",
    marker("file draft-review.yaml"),
    fenced("yaml", EXAMPLE_WORKFLOW),
    "",
    "## Top level",
    "",
    "- `name`: letters, digits, `.`, `_`, `-`, starting with a letter or digit; it must equal the",
    "  file stem (`draft-review.yaml`), or the folder name for `<name>/index.yaml`.",
    "- `description`: one line for people and listings.",
    "- `roles`: role name → role (at least one). Role names follow the name rule and never start",
    "  with `$`.",
    `- \`graph\`: \`${START}\` and each role → its edges, one per status.`,
    "- `inputs` (optional): a JSON Schema (an object) of the values a thread starts with, read",
    "  in prompts as `{{{inputs.<name>}}}`.",
    "- `maxSteps` (optional): the thread suspends before a step once it holds this many steps.",
    "- `worktree` (optional): `true` runs every thread in its own git worktree and branch.",
    "- `on` (optional): `github: { events: [issues.opened, push], inputs: { <input>: <template> },",
    "  key: <template> }`: the GitHub events that start a thread (`thread start --event`), each",
    "  input rendered from `{{{event.<field>}}}`; the same key finds the same thread.",
    "- Nothing else: an unknown key is an error, so a typo never disappears silently.",
    "",
    "## Roles",
    "",
    "`goal`, `capabilities` (a list of strings), `procedure` and `output` are given to the agent",
    "as `## Goal`, `## Capabilities`, `## Procedure` and `## Output`; `description` is for people.",
    "`frontmatter` (required) is the JSON Schema (draft-07 unless it says otherwise) of the",
    "role's structured answer: an object. Only the fields it declares are kept from an answer,",
    "and the agent is told exactly which fields each status needs.",
    "",
    "Two kinds of role run no agent. `agent: human` makes the thread wait for a person, who",
    "answers with `uwf thread answer <thread> --status <s> --set field=value` (an approval gate",
    "is a human role with `approved` and `rejected` edges). `run: [npm, test]` runs a command",
    "(no shell unless `shell: true` with one string) and its result is the output: stdout as",
    "JSON or frontmatter, else `$status` from `exitStatus: { 0: passed, default: failed }`;",
    "`timeoutSeconds` bounds it. Both are validated against `frontmatter` like an agent's answer.",
    "",
    `## Exits: \`${STATUS_FIELD}\``,
    "",
    `Every answer carries a \`${STATUS_FIELD}\` string, listed in \`required\`. Declare the values`,
    "one of three ways:",
    "",
    `- one exit: \`${STATUS_FIELD}: { const: done }\`;`,
    `- several exits with the same fields: \`${STATUS_FIELD}: { enum: [continue, conceded] }\`;`,
    `- several exits with different fields: \`oneOf\` variants, each with its own \`const\``,
    "  status and the fields that status needs (as `writer` and `reviewer` above). Top-level",
    "  `properties` are shared by every variant. Use `oneOf`, never `anyOf`.",
    "",
    `Statuses are non-empty, unique, and never start with \`$\`; \`_\` is not a status. The`,
    "declared statuses must be exactly the keys of the role's graph entry.",
    "",
    "## The graph",
    "",
    "`graph[<role>][<status>]` is `{ role, prompt, location }`:",
    "",
    `- \`role\` (required): the next role, \`${END}\` (the thread completes) or \`${SUSPEND}\` (the`,
    "  thread waits for a human; the rendered prompt is the question).",
    "- `prompt` (required, not empty): a mustache template rendered with the answer that left",
    `  the role. It becomes the next agent's \`## Moderator Instruction\`, the final message of`,
    `  \`${END}\`, or the question of \`${SUSPEND}\`.`,
    "- `location` (optional): a mustache template for the next step's working directory; a",
    "  relative path resolves against the thread's cwd.",
    "",
    `\`${START}\` is a graph key only, with exactly the statuses \`${fresh}\` (a new thread) and`,
    `\`${resume}\` (a completed thread resumed with \`uwf thread resume\`); both edges target a role`,
    `and read no output fields (the thread's task reaches every agent as \`## Task\`). \`${END}\` and`,
    `\`${SUSPEND}\` are targets only. Any agent may answer \`${STATUS_FIELD}: ${SUSPEND}\` with a`,
    "`reason` to ask a human, without declaring it; never declare it yourself.",
    "",
    "## Templates",
    "",
    "- No HTML escaping: `{{x}}` and `{{{x}}}` both insert the value as it is.",
    "- Dotted names read nested fields (`{{meta.author}}`); sections iterate lists and test",
    "  values (`{{#comments}}- {{{.}}}{{/comments}}`, `{{^comments}}none{{/comments}}`).",
    "- Partials (`{{> x}}`) and Liquid filters (`{{ x | upcase }}`) are not supported, nor is",
    "  `{{_body}}`: a template reads frontmatter fields (and `{{{inputs.<name>}}}`) only.",
    "- Every variable must be declared in the role's frontmatter **for that status** (the",
    "  variant's fields plus the shared ones); validation parses each template and checks it.",
    "",
    "## Typed inputs",
    "",
    "A top-level `inputs:` (a JSON Schema of an object) declares the values a thread starts",
    "with: `uwf thread start <workflow> -p <task> --input issue=42 --input urgent=true` (values",
    "coerced by the declared types, JSON for arrays and objects) or `--inputs <file.yaml>`.",
    "They are validated before anything is stored, every edge (`$START` ones too) reads them as",
    "`{{{inputs.<name>}}}`, and every agent sees them under `## Task`. A role output field may",
    "not be named `inputs` in such a workflow.",
    "",
    "## Guards",
    "",
    "A loop that may never converge gets a bound: top-level `maxSteps: 30` (steps in the whole",
    "thread) and a role's `maxVisits: 3` (steps of that role). Reaching one suspends the thread",
    "before the step starts (`suspended.kind: guard`); `uwf thread resume <id>` goes past it once",
    "a human decides.",
    "",
    "## Fan-out and join",
    "",
    "An edge may run child threads, one per item of a list in the output, then a join step:",
    '`fanout: { over: "{{{files}}}", role: review }` (or `workflow: <name | path | hash>`',
    "instead of `role`; `concurrency: 4` and `failure: all | any | continue` are optional). The",
    "edge's `role` is the join, a role with `join: true` that runs nothing: uwf writes its output",
    "(`$status: done | partial`, `results`, `completed`, `failed`) once the children have ended,",
    "and only fan-out edges may lead to it. The edge `prompt` is each child's task, rendered with",
    "`{{{item}}}` and `{{{index}}}`; `over` must be declared with `type: array`. Without `over`",
    "there is one child: a sub-workflow. The child workflow is pinned by hash when the parent is",
    "stored. Children that edit files should each get a git worktree: `worktree: true` in the",
    "child workflow, or on the `fanout` of a `role:` child.",
    "",
    "## `!include`",
    "",
    "`!include <relative path>` may replace any value: `.yaml`, `.yml` and `.json` files are",
    "parsed, other files become strings. Paths resolve against the including file and must stay",
    "inside the workflow's folder (symlinks included). Included content is stored inside the",
    "workflow, so a started thread never sees later edits of the files.",
    "",
    "## Check it, then run it",
    "",
    "```sh",
    "uwf workflow validate draft-review.yaml   # every error at once; exit 3 when invalid",
    "uwf workflow add draft-review.yaml        # register it under its name (keeps history)",
    "```",
    "",
    "Validation reports every problem at its `file:line:col` with a precise message (a missing",
    "status key, an unknown target, an unreachable role, a template variable the schema does not",
    "declare, a name that does not match the file; a misspelt name gets the one meant) and warns",
    "about roles that can never reach",
    `\`${END}\`. Fix every error before running the workflow.`,
    "",
    "Try the routing without a model: `uwf-mock` replays scripted answers, one per step.",
    "",
    "`draft-review-mock.yaml`:",
    "",
    marker("file draft-review-mock.yaml"),
    fenced("yaml", EXAMPLE_SCENARIO),
    "",
    marker("verify"),
    fenced(
      "sh",
      [
        "set -eu",
        'thread=$(uwf thread start draft-review.yaml -p "Write a welcome note for Ada.")',
        'uwf thread exec "$thread" -c 10 --agent "uwf-mock --scenario draft-review-mock.yaml"',
        'uwf thread read "$thread"',
      ].join("\n"),
    ),
    "",
    "The thread goes writer → reviewer → writer → reviewer and completes. A workflow is looked",
    "up as a hash, a file, `.workflows/<name>.yaml` in the nearest folder up to the repository",
    "root, or a registered name; a running thread keeps the version it started with.",
    "",
    "A scenario answers the steps in order, one entry each: `role` (the role uwf asks for),",
    "`output` (the frontmatter) and `body` (markdown). An output of `$status: $SUSPEND` with a",
    "`reason` asks a human: the thread suspends until `uwf thread resume <thread> -p",
    '"<answer>"`, which runs the same role again with the next entry. `exit: 4` scripts a failed',
    "agent, and `attempts:` a list of answers that need repair. A relative `--scenario` path is",
    "read from the thread's cwd, where the agent runs (the folder `uwf thread start` ran in, or",
    "its `--cwd`). The whole format is in the `@united-workforce/agent-mock` package's README.",
  ].join("\n");
}
