import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, UwfError } from "@united-workforce/util";

/**
 * The task of `thread start`: `-p <text>`, `-p -` (stdin) or `--prompt-file <path>` (relative
 * to the caller's directory). Exactly one must be given, and the task must not be blank.
 */
export function readTask(
  cwd: string,
  options: { prompt?: string | undefined; promptFile?: string | undefined },
  readStdin: () => string = () => readFileSync(0, "utf8"),
): string {
  const { prompt, promptFile } = options;
  if (prompt !== undefined && promptFile !== undefined) {
    throw new UwfError("USAGE", "-p/--prompt and --prompt-file were both given", {
      hint: "Give the task once: -p <text>, -p - to read it from stdin, or --prompt-file <path>.",
    });
  }
  if (prompt === undefined && promptFile === undefined) {
    throw new UwfError("USAGE", "--prompt is required (or give --prompt-file)", {
      hint: 'Say what the thread should do: -p "…", -p - to read it from stdin, or --prompt-file <path>.',
    });
  }
  const source =
    promptFile !== undefined
      ? `--prompt-file ${promptFile}`
      : prompt === "-"
        ? "stdin (-p -)"
        : "-p";
  let task: string;
  if (promptFile !== undefined) {
    try {
      task = readFileSync(resolve(cwd, promptFile), "utf8");
    } catch (error) {
      throw new UwfError("USAGE", `cannot read the task from ${source}: ${errorMessage(error)}`, {
        hint: "Pass a readable file (relative paths are taken from the current directory), or give the task with -p.",
      });
    }
  } else if (prompt === "-") {
    try {
      task = readStdin();
    } catch (error) {
      throw new UwfError("USAGE", `cannot read the task from ${source}: ${errorMessage(error)}`, {
        hint: "Pipe the task in (e.g. `uwf thread start w -p - < task.md`), or give it with -p or --prompt-file.",
      });
    }
  } else {
    task = prompt!;
  }
  if (task.trim() === "") {
    throw new UwfError("USAGE", `the task from ${source} is empty`, {
      hint: 'Say what the thread should do: -p "…", -p - with text on stdin, or --prompt-file with a non-empty file.',
    });
  }
  return task;
}
