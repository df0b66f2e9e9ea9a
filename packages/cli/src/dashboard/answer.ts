import { openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine } from "@united-workforce/engine";
import { ExitCode } from "@united-workforce/protocol";
import { nodeChildProcess, UwfError } from "@united-workforce/util";
import { threadStatus } from "./data.js";
import type { LiveFeed } from "./live.js";

/** Longer answers belong in a file: `uwf thread resume <id> -p "$(cat answer.md)"`. */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface AnswerContext {
  engine: Engine;
  feed: LiveFeed;
  home: string;
  cwd: string;
  env: Record<string, string | undefined>;
  /** How to start this CLI again (node + script). */
  self: readonly string[];
  /** A private folder for the resume processes' stderr, removed when the server stops. */
  scratch: string;
}

/**
 * Answer a suspended thread: exactly `uwf thread resume <id> -p <answer>`, run as its own
 * detached process so the step goes on when the dashboard stops, and so the server keeps
 * answering while it runs. Resolves once that step has started (its `step.start` is in the
 * log) or the process has ended; a resume refused at once (the thread moved on meanwhile) is an
 * error carrying its message.
 */
export async function answerThread(
  ctx: AnswerContext,
  thread: string,
  answer: string,
): Promise<"started" | "finished"> {
  const row = await threadStatus(ctx.engine, thread);
  const pointer = await ctx.engine.store.threads.get(thread);
  if (row.status !== "suspended" || pointer.suspended === null) {
    throw new UwfError(
      "THREAD_STATE",
      `thread ${thread} is ${row.status}, not waiting for an answer`,
      {
        hint: "Reload the page to see what it is doing now.",
      },
    );
  }
  if (pointer.suspended.kind === "question" && answer.trim() === "") {
    throw new UwfError("USAGE", "the answer is empty", {
      hint: "Write your answer, then send it.",
    });
  }
  const args = [...ctx.self.slice(1), "thread", "resume", thread];
  if (answer.trim() !== "") args.push(`--prompt=${answer}`);
  const errFile = join(ctx.scratch, `resume-${thread}-${Date.now()}.log`);
  const stderr = openSync(errFile, "w");
  const started = ctx.feed.next((e) => e.event === "step.start" && e.thread === thread);
  const child = nodeChildProcess().spawn(ctx.self[0]!, args, {
    cwd: ctx.cwd,
    env: { ...ctx.env, UWF_HOME: ctx.home } as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "ignore", stderr],
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  child.unref();
  try {
    const first = await Promise.race([started.event.then(() => null), exited]);
    if (first === null) return "started";
    // A failed agent suspends the thread again: the step ran, and the page shows why.
    if (first === ExitCode.ok || first === ExitCode.agentFailed) return "finished";
    const message = lastLines(errFile) || `uwf thread resume exited with ${first}`;
    throw new UwfError("THREAD_STATE", message, {
      hint: `See the details with: uwf thread show ${thread}`,
    });
  } finally {
    started.cancel();
  }
}

function lastLines(path: string): string {
  try {
    return readFileSync(path, "utf8").trim().split("\n").slice(-3).join("\n");
  } catch {
    return "";
  }
}
