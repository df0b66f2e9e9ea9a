import type { ToolDefinition } from "@united-workforce/agent-kit";
import { errorMessage, sanitizeTerminalText } from "@united-workforce/util";
import { parseArgs, type ToolArgs } from "./args.js";
import { boundOutput } from "./bound.js";
import { editFileTool, listDirTool, readFileTool, writeFileTool } from "./files.js";
import { runCommandTool } from "./run-command.js";
import { searchTool } from "./search.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

export interface ToolEnvironment {
  workspace: Workspace;
  /** Bytes of one tool result the model gets back. */
  maxOutputBytes: number;
  /** The longest one run_command may take (already cut to the step's remaining time). */
  commandTimeoutMs: number;
  commandEnv: Record<string, string>;
  signal?: AbortSignal;
}

export interface ToolOutcome {
  /** The parsed arguments (or the raw string when they were not JSON). */
  input: unknown;
  output: string;
  isError: boolean;
}

const path = (description: string) => ({ type: "string", description });

const DEFINITIONS: Record<string, ToolDefinition["function"]> = {
  read_file: {
    name: "read_file",
    description: "Read a UTF-8 text file under the working directory, whole or a range of lines.",
    parameters: {
      type: "object",
      properties: {
        path: path("file path, relative to the working directory"),
        start_line: { type: "integer", minimum: 1, description: "first line to return (1-based)" },
        line_count: { type: "integer", minimum: 1, description: "how many lines to return" },
      },
      required: ["path"],
    },
  },
  write_file: {
    name: "write_file",
    description:
      "Create or overwrite a file under the working directory (parent folders are created).",
    parameters: {
      type: "object",
      properties: {
        path: path("file path, relative to the working directory"),
        content: { type: "string", description: "the whole new content" },
      },
      required: ["path", "content"],
    },
  },
  edit_file: {
    name: "edit_file",
    description:
      "Replace one exact occurrence of old_string with new_string in a file. old_string must match exactly once (whitespace included): add surrounding lines to make it unique.",
    parameters: {
      type: "object",
      properties: {
        path: path("file path, relative to the working directory"),
        old_string: { type: "string", description: "the exact text to replace" },
        new_string: { type: "string", description: "the text to put in its place" },
      },
      required: ["path", "old_string", "new_string"],
    },
  },
  list_dir: {
    name: "list_dir",
    description:
      "List a directory under the working directory (folders end in /, symbolic links in @).",
    parameters: {
      type: "object",
      properties: { path: path("directory path, relative to the working directory (default .)") },
    },
  },
  search: {
    name: "search",
    description:
      "Find lines containing a text (or matching a regular expression) in the files under a path; answers file:line: text. Skips .git, node_modules, binary and large files.",
    parameters: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "the text to find" },
        regex: { type: "boolean", description: "treat pattern as a JavaScript regular expression" },
        path: path("file or directory to search (default .)"),
        max_results: {
          type: "integer",
          minimum: 1,
          description: "matching lines to return (default 100)",
        },
      },
      required: ["pattern"],
    },
  },
  run_command: {
    name: "run_command",
    description:
      "Run a program in the working directory WITHOUT a shell: argv is the program and its arguments (no pipes, redirections or globs). Answers the exit code and the combined output.",
    parameters: {
      type: "object",
      properties: {
        argv: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          description: 'e.g. ["git", "status"]',
        },
        timeout_seconds: {
          type: "integer",
          minimum: 1,
          description: "kill it after this long (capped by the agent's limit)",
        },
      },
      required: ["argv"],
    },
  },
};

export const TOOL_NAMES = Object.keys(DEFINITIONS);

/** The tools offered to the model; `run_command` can be left out. */
export function toolDefinitions(options: { runCommand: boolean }): ToolDefinition[] {
  return Object.values(DEFINITIONS)
    .filter((fn) => options.runCommand || fn.name !== "run_command")
    .map((fn) => ({ type: "function", function: fn }));
}

/**
 * Run one tool call. Whatever goes wrong — unknown tool, bad arguments, a path outside the
 * working directory, an I/O error — becomes an error result for the model, never a throw.
 */
export async function runTool(
  name: string,
  rawArgs: string,
  env: ToolEnvironment,
  offered: readonly string[],
): Promise<ToolOutcome> {
  let input: unknown = rawArgs;
  try {
    const args = parseArgs(rawArgs);
    input = args;
    if (!offered.includes(name)) {
      throw new ToolError(`there is no tool "${name}"; the tools are: ${offered.join(", ")}`);
    }
    const { output, isError } = await dispatch(name, args, env);
    return { input, output: boundOutput(output, env.maxOutputBytes), isError };
  } catch (error) {
    const message = error instanceof ToolError ? error.message : errorMessage(error);
    return { input, output: boundOutput(`error: ${message}`, env.maxOutputBytes), isError: true };
  }
}

async function dispatch(
  name: string,
  args: ToolArgs,
  env: ToolEnvironment,
): Promise<{ output: string; isError: boolean }> {
  const ws = env.workspace;
  const ok = (output: string) => ({ output, isError: false });
  switch (name) {
    case "read_file":
      return ok(readFileTool(ws, args));
    case "write_file":
      return ok(writeFileTool(ws, args));
    case "edit_file":
      return ok(editFileTool(ws, args));
    case "list_dir":
      return ok(listDirTool(ws, args));
    case "search":
      return ok(searchTool(ws, args));
    case "run_command":
      return runCommandTool(ws, args, {
        timeoutMs: env.commandTimeoutMs,
        maxBytes: env.maxOutputBytes,
        env: env.commandEnv,
        ...(env.signal ? { signal: env.signal } : {}),
      });
    default:
      throw new ToolError(`there is no tool "${name}"`);
  }
}

/** One short line for the progress output: the tool and what it touches. */
export function describeCall(name: string, input: unknown): string {
  const args = typeof input === "object" && input !== null ? (input as ToolArgs) : {};
  let what = "";
  if (name === "run_command" && Array.isArray(args.argv)) what = args.argv.map(String).join(" ");
  else if (name === "search" && typeof args.pattern === "string")
    what = JSON.stringify(args.pattern);
  else if (typeof args.path === "string") what = args.path;
  const line = sanitizeTerminalText(`${name}${what ? ` ${what}` : ""}`).replace(/\s+/g, " ");
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
