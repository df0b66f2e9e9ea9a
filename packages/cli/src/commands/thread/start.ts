import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { NewThread, ResolvedWorkflow } from "@united-workforce/engine";
import type {
  JsonSchema,
  JsonValue,
  ThreadPointer,
  ThreadStartDocument,
  ThreadWorktree,
} from "@united-workforce/protocol";
import type { Store } from "@united-workforce/store";
import { newUlid, UwfError } from "@united-workforce/util";
import { type CommandContext, defineCommand, result } from "../command.js";
import { readGithubEvent } from "./event-input.js";
import { readInputsFile } from "./inputs-file.js";
import { resolveUnstored } from "./shared.js";
import { readTask } from "./task-input.js";
import { givenTitle, titleOption } from "./title-option.js";
import { worktreePlace } from "./worktrees.js";

export default defineCommand({
  path: ["thread", "start"],
  summary:
    "start a thread of a workflow (nothing runs until `thread exec`), or the thread a GitHub event starts",
  args: [
    { name: "workflow", description: "workflow hash, file, .workflows/ name or registered name" },
  ],
  options: [
    {
      flags: "-p, --prompt <text>",
      type: "string",
      description:
        'the task, given to every role as ## Task ("-": read it from stdin); with --event, a description of the event unless given',
      hint: 'Say what the thread should do: -p "…", or -p - to read it from stdin',
    },
    {
      flags: "--prompt-file <path>",
      type: "string",
      description: "read the task from a file instead of -p",
    },
    titleOption("the task's first line"),
    {
      flags: "--cwd <dir>",
      type: "string",
      description: "working directory for the agents (default: the current one)",
    },
    {
      flags: "--input <name=value>",
      type: "string",
      repeatable: true,
      description:
        "one of the workflow's declared inputs, coerced by its declared type (numbers, true or false, JSON for arrays and objects); overrides --inputs",
    },
    {
      flags: "--inputs <file>",
      type: "string",
      description: "read the workflow's inputs from a YAML or JSON mapping",
    },
    {
      flags: "--event <file>",
      type: "string",
      description:
        'start the thread a GitHub event starts (its JSON payload; "-": stdin), as the workflow\'s on.github maps it: the same event again finds the same thread',
    },
    {
      flags: "--event-name <name>",
      type: "string",
      description: "the event's name (issues, push, issue_comment, …; default: $GITHUB_EVENT_NAME)",
    },
    {
      flags: "--delivery <id>",
      type: "string",
      description:
        "the event's delivery id (X-GitHub-Delivery): the event's identity when on.github.key is not declared",
    },
    {
      flags: "--worktree",
      type: "boolean",
      description:
        "run the thread in its own git worktree on branch uwf/<thread>, made from the repository holding --cwd (the workflow's `worktree: true` does the same)",
    },
    {
      flags: "--no-worktree",
      type: "boolean",
      description: "run the thread in --cwd itself even when the workflow says `worktree: true`",
    },
  ],
  examples: [
    'uwf thread start examples/hello.yaml -p "Greet the team"',
    'uwf thread start solve-issue -p "Fix #12" --cwd /src/app',
    'uwf thread start solve-issue --prompt-file issue.md --title "Login times out"',
    "uwf thread start solve-issue --prompt-file issue.md",
    "gh issue view 12 | uwf thread start solve-issue -p -",
    'uwf thread start examples/triage.yaml -p "Triage it" --input issue=42 --input urgent=true',
    'uwf thread start triage -p "Triage it" --inputs issue.yaml',
    'uwf thread start solve-issue -p "Fix #12" --worktree',
    'uwf thread start examples/triage.yaml --event "$GITHUB_EVENT_PATH"',
    "uwf thread start triage --event issue.json --event-name issues --delivery 72d3162e",
  ],
  async run(ctx, [ref], options) {
    const title = givenTitle(options.title);
    const event = options.event as string | undefined;
    if (event !== undefined) checkEventOptions(options);
    // With --event the task may be left out: the event's description is the task.
    const prompt =
      event !== undefined && options.prompt === undefined && options.promptFile === undefined
        ? undefined
        : readTask(ctx.cwd, {
            prompt: options.prompt,
            promptFile: options.promptFile,
          });
    const cwd = resolve(ctx.cwd, (options.cwd as string | undefined) ?? ".");
    if (!isDirectory(cwd)) {
      throw new UwfError("USAGE", `--cwd "${cwd}" is not an existing directory`, {
        hint: "Create the directory first or pass another one.",
      });
    }
    if (event !== undefined) {
      return startFromEvent(ctx, ref!, {
        event,
        eventName: options.eventName as string | undefined,
        delivery: options.delivery as string | undefined,
        prompt,
        title,
        cwd,
        worktree: options.worktree as boolean | undefined,
      });
    }
    const inputsFile =
      options.inputs === undefined ? undefined : await readInputsFile(ctx.cwd, options.inputs);
    const store = await ctx.store();
    // Nothing is stored, the workflow read from a file included, until the inputs are valid.
    const workflow = await resolveUnstored(ctx, store, ref!);
    if (prompt === undefined) throw new UwfError("INTERNAL", "thread start: no task");
    const inputs = await workflowInputs(store, workflow, {
      pairs: options.input,
      file: inputsFile,
    });
    const now = Date.now();
    const thread = newUlid(now);
    // `--worktree`/`--no-worktree` decide; without either, the workflow's `worktree:` does.
    const wantWorktree =
      (options.worktree as boolean | undefined) ?? workflow.payload.worktree === true;
    const place = wantWorktree
      ? await makeWorktree(ctx, cwd, thread)
      : { cwd, worktree: undefined };
    const pointer = await storeThread(ctx, store, workflow, {
      thread,
      workflow: workflow.payload.name,
      workflowHash: workflow.hash,
      prompt,
      ...(title !== undefined && { title }),
      cwd: place.cwd,
      createdAtMs: now,
      ...(inputs === null ? {} : { inputs }),
      ...(place.worktree === undefined ? {} : { worktree: place.worktree }),
    });
    ctx.events.emit("thread.start", {
      thread: pointer.thread,
      workflow: pointer.workflow,
      title: pointer.title!,
      ...(place.worktree && { worktree: place.worktree.path, branch: place.worktree.branch }),
    });
    const doc: ThreadStartDocument = {
      thread: pointer.thread,
      title: pointer.title!,
      workflow: pointer.workflow,
      head: pointer.start,
      status: "idle",
    };
    return result(doc, (d) => d.thread);
  },
});

/** With --event the event gives the inputs, and stdin can hold only one of the event and the task. */
function checkEventOptions(options: Record<string, unknown>): void {
  const inputs = options.input as readonly string[] | undefined;
  if ((inputs !== undefined && inputs.length > 0) || options.inputs !== undefined) {
    throw new UwfError("USAGE", "--input and --inputs do not go with --event", {
      hint: "The event gives the thread's inputs, as the workflow's on.github.inputs maps them.",
    });
  }
  if (options.event === "-" && options.prompt === "-") {
    throw new UwfError("USAGE", "--event - and -p - both read stdin", {
      hint: "Give the event as a file, or the task with -p <text> or --prompt-file.",
    });
  }
}

interface EventStart {
  event: string;
  eventName: string | undefined;
  delivery: string | undefined;
  prompt: string | undefined;
  title: string | undefined;
  cwd: string;
  worktree: boolean | undefined;
}

/**
 * `thread start --event`: the thread the event maps to, started once (engine's
 * triggers/github.ts). The same event again prints the same id with `started: false`.
 */
async function startFromEvent(ctx: CommandContext, ref: string, given: EventStart) {
  const event = readGithubEvent(ctx.cwd, given, ctx.env);
  const store = await ctx.store();
  const { eventNotDeclared, matchGithubEvent, materialiseWorkflow, startTriggeredThread } =
    await import("@united-workforce/engine");
  const workflow = await resolveUnstored(ctx, store, ref);
  const schema = await inputsSchema(store, workflow);
  const match = matchGithubEvent(
    {
      hash: workflow.hash,
      payload: workflow.payload,
      inputs: schema,
      validate:
        schema === null ? undefined : store.cas.schemaValidator(schema as JsonSchema).validate,
    },
    event,
  );
  if (!match.matched) throw eventNotDeclared(workflow.payload.name, match);
  if (workflow.unstored !== null) await materialiseWorkflow(store.cas, workflow.unstored);
  const wantWorktree = given.worktree ?? workflow.payload.worktree === true;
  // A worktree made for a thread that was then not stored is taken back; one whose thread
  // exists (another start of the same event won) is that thread's.
  let made: ThreadWorktree | undefined;
  const place = async (thread: string) => {
    const placed = await makeWorktree(ctx, given.cwd, thread);
    made = placed.worktree;
    return placed;
  };
  let triggered: Awaited<ReturnType<typeof startTriggeredThread>>;
  try {
    triggered = await startTriggeredThread(store, {
      workflow: { name: workflow.payload.name, hash: workflow.hash },
      match,
      ...(given.prompt === undefined ? {} : { prompt: given.prompt }),
      ...(given.title === undefined ? {} : { title: given.title }),
      cwd: given.cwd,
      ...(wantWorktree && { place }),
    });
  } catch (error) {
    if (!(await store.threads.exists(match.thread))) await dropWorktree(made, ctx.env);
    throw error;
  }
  const { pointer, started } = triggered;
  if (started) {
    ctx.events.emit("thread.start", {
      thread: pointer.thread,
      workflow: pointer.workflow,
      title: pointer.title!,
      ...(pointer.worktree && { worktree: pointer.worktree.path, branch: pointer.worktree.branch }),
    });
  } else {
    ctx.progress(
      `thread ${pointer.thread} was already started by this event (${match.event}, key ${match.key}); it is ${pointer.status}`,
    );
  }
  const doc: ThreadStartDocument = {
    thread: pointer.thread,
    title: pointer.title ?? pointer.workflow,
    workflow: pointer.workflow,
    head: pointer.head,
    status: pointer.status,
    started,
    event: match.event,
    key: match.key,
  };
  return result(doc, (d) => d.thread);
}

/** The workflow's declared `inputs:` schema, from the file read or from the store; null when none. */
async function inputsSchema(
  store: Store,
  workflow: ResolvedWorkflow,
): Promise<Record<string, unknown> | null> {
  return (
    workflow.unstored?.inputs ??
    (workflow.payload.inputs === undefined
      ? null
      : ((await store.cas.get(workflow.payload.inputs)).payload as Record<string, unknown>))
  );
}

/**
 * The thread's inputs, checked against the workflow's declared ones (null when it declares
 * none). Unreadable, missing and unknown inputs are named together, in one error.
 */
async function workflowInputs(
  store: Store,
  workflow: ResolvedWorkflow,
  given: { pairs: readonly string[]; file: { name: string; values: unknown } | undefined },
): Promise<Record<string, JsonValue> | null> {
  const { collectThreadInputs } = await import("@united-workforce/engine");
  const schema = await inputsSchema(store, workflow);
  const inputs = collectThreadInputs(
    workflow.payload.name,
    schema,
    given,
    schema === null ? undefined : store.cas.schemaValidator(schema as JsonSchema).validate,
  );
  return schema === null ? null : (inputs as Record<string, JsonValue>);
}

/** The thread's own git worktree, made from the repository holding `cwd`. */
async function makeWorktree(
  ctx: CommandContext,
  cwd: string,
  thread: string,
): Promise<{ cwd: string; worktree: ThreadWorktree }> {
  const { createThreadWorktree } = await import("@united-workforce/engine");
  const made = createThreadWorktree(await worktreePlace(ctx), cwd, thread);
  ctx.progress(`worktree ${made.worktree.path} on branch ${made.worktree.branch}`);
  return { cwd: made.cwd, worktree: made.worktree };
}

/**
 * Store the workflow read from a file, then the thread. A worktree made for a thread that
 * could not be stored is taken back.
 */
async function storeThread(
  ctx: CommandContext,
  store: Store,
  workflow: ResolvedWorkflow,
  thread: NewThread,
): Promise<ThreadPointer> {
  const { createThread, materialiseWorkflow } = await import("@united-workforce/engine");
  try {
    if (workflow.unstored !== null) await materialiseWorkflow(store.cas, workflow.unstored);
    return await createThread(store, thread);
  } catch (error) {
    await dropWorktree(thread.worktree, ctx.env);
    throw error;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Take back the worktree of a thread that was not created (it holds nothing yet). */
async function dropWorktree(
  worktree: ThreadWorktree | undefined,
  env: Record<string, string | undefined>,
): Promise<void> {
  if (worktree === undefined) return;
  const { removeThreadWorktree } = await import("@united-workforce/engine");
  try {
    removeThreadWorktree(worktree, env);
  } catch {
    // The error that matters is the caller's.
  }
}
