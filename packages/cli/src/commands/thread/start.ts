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
import { readInputsFile } from "./inputs-file.js";
import { readTask } from "./task-input.js";
import { givenTitle, titleOption } from "./title-option.js";
import { worktreePlace } from "./worktrees.js";

export default defineCommand({
  path: ["thread", "start"],
  summary: "start a thread of a workflow (nothing runs until `thread exec`)",
  args: [
    { name: "workflow", description: "workflow hash, file, .workflows/ name or registered name" },
  ],
  options: [
    {
      flags: "-p, --prompt <text>",
      type: "string",
      description: 'the task, given to every role as ## Task ("-": read it from stdin)',
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
  ],
  async run(ctx, [ref], options) {
    const title = givenTitle(options.title);
    const prompt = readTask(ctx.cwd, {
      prompt: options.prompt,
      promptFile: options.promptFile,
    });
    const cwd = resolve(ctx.cwd, (options.cwd as string | undefined) ?? ".");
    if (!isDirectory(cwd)) {
      throw new UwfError("USAGE", `--cwd "${cwd}" is not an existing directory`, {
        hint: "Create the directory first or pass another one.",
      });
    }
    const inputsFile =
      options.inputs === undefined ? undefined : await readInputsFile(ctx.cwd, options.inputs);
    const store = await ctx.store();
    const { validatorCacheDir } = await import("@united-workforce/store");
    const { resolveWorkflow } = await import("@united-workforce/engine");
    // Nothing is stored, the workflow read from a file included, until the inputs are valid.
    const workflow = await resolveWorkflow(ref!, {
      cwd: ctx.cwd,
      cas: store.cas,
      registry: store.registry,
      validatorCacheDir: validatorCacheDir(ctx.home),
      deferWrite: true,
    });
    for (const warning of workflow.warnings) ctx.progress(`warning: ${warning}`);
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
  const schema =
    workflow.unstored?.inputs ??
    (workflow.payload.inputs === undefined
      ? null
      : ((await store.cas.get(workflow.payload.inputs)).payload as Record<string, unknown>));
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
