import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { StartPayload, ThreadPointer, ThreadStartDocument } from "@united-workforce/protocol";
import { newUlid, UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { readTask } from "./task-input.js";

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
    {
      flags: "--cwd <dir>",
      type: "string",
      description: "working directory for the agents (default: the current one)",
    },
  ],
  examples: [
    'uwf thread start examples/hello.yaml -p "Greet the team"',
    'uwf thread start solve-issue -p "Fix #12" --cwd /src/app',
    "uwf thread start solve-issue --prompt-file issue.md",
    "gh issue view 12 | uwf thread start solve-issue -p -",
  ],
  async run(ctx, [ref], options) {
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
    const store = await ctx.store();
    const { validatorCacheDir } = await import("@united-workforce/store");
    const { resolveWorkflow } = await import("@united-workforce/engine");
    const workflow = await resolveWorkflow(ref!, {
      cwd: ctx.cwd,
      cas: store.cas,
      registry: store.registry,
      validatorCacheDir: validatorCacheDir(ctx.home),
    });
    for (const warning of workflow.warnings) ctx.progress(`warning: ${warning}`);
    const now = Date.now();
    const startPayload: StartPayload = { workflow: workflow.hash, prompt, cwd, createdAtMs: now };
    const start = await store.cas.put(store.cas.builtin("start"), startPayload);
    const at = new Date(now).toISOString();
    const pointer: ThreadPointer = {
      thread: newUlid(now),
      workflow: workflow.payload.name,
      workflowHash: workflow.hash,
      start,
      head: start,
      status: "idle",
      currentRole: null,
      suspended: null,
      steps: 0,
      cwd,
      createdAt: at,
      updatedAt: at,
    };
    await store.threads.create(pointer);
    ctx.logger.info("thread.start", { thread: pointer.thread, workflow: pointer.workflow });
    const doc: ThreadStartDocument = {
      thread: pointer.thread,
      workflow: pointer.workflow,
      head: start,
      status: "idle",
    };
    return result(doc, (d) => d.thread);
  },
});

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
