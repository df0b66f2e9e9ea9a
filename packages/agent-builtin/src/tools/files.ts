import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { optionalInteger, optionalString, stringArg, type ToolArgs } from "./args.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

/** Files larger than this are not read whole: the model should search them instead. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

export function readFileTool(ws: Workspace, args: ToolArgs): string {
  const path = ws.resolve(args.path);
  const startLine = optionalInteger(args, "start_line", 1);
  const lineCount = optionalInteger(args, "line_count", 1);
  const text = readText(ws, path);
  if (startLine === undefined && lineCount === undefined) return text;
  const lines = text.split("\n");
  const from = (startLine ?? 1) - 1;
  const to = lineCount === undefined ? lines.length : from + lineCount;
  if (from >= lines.length) {
    throw new ToolError(
      `${ws.display(path)} has ${lines.length} lines; start_line ${from + 1} is past its end`,
    );
  }
  return lines.slice(from, to).join("\n");
}

export function writeFileTool(ws: Workspace, args: ToolArgs): string {
  const path = ws.resolve(args.path);
  const content = stringArg(args, "content");
  if (isDirectory(path)) throw new ToolError(`${ws.display(path)} is a directory`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return `wrote ${Buffer.byteLength(content)} bytes to ${ws.display(path)}`;
}

/** Replace one exact occurrence of `old_string`: an edit that could land in two places is refused. */
export function editFileTool(ws: Workspace, args: ToolArgs): string {
  const path = ws.resolve(args.path);
  const oldString = stringArg(args, "old_string");
  const newString = stringArg(args, "new_string");
  if (oldString === "")
    throw new ToolError(`"old_string" must not be empty: use write_file to create a file`);
  const text = readText(ws, path);
  const count = occurrences(text, oldString);
  if (count === 0) {
    throw new ToolError(
      `"old_string" was not found in ${ws.display(path)}: read the file and copy the text exactly, whitespace included`,
    );
  }
  if (count > 1) {
    throw new ToolError(
      `"old_string" occurs ${count} times in ${ws.display(path)}: include more of the surrounding text so that it matches exactly once`,
    );
  }
  const at = text.indexOf(oldString);
  writeFileSync(path, text.slice(0, at) + newString + text.slice(at + oldString.length));
  return `replaced 1 occurrence in ${ws.display(path)}`;
}

/** One entry per line, directories with a trailing `/`, sorted. */
export function listDirTool(ws: Workspace, args: ToolArgs): string {
  const path = ws.resolve(optionalString(args, "path") ?? ".");
  if (!isDirectory(path)) throw new ToolError(`${ws.display(path)} is not a directory`);
  const entries = readdirSync(path, { withFileTypes: true })
    .map((entry) => {
      if (entry.isDirectory()) return `${entry.name}/`;
      if (entry.isSymbolicLink()) return `${entry.name}@`;
      return entry.name;
    })
    .sort();
  if (entries.length === 0) return `${ws.display(path)} is empty`;
  return entries.join("\n");
}

function readText(ws: Workspace, path: string): string {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new ToolError(`${ws.display(path)} is a directory: use list_dir`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ToolError(`${ws.display(path)} does not exist`);
    }
    throw error;
  }
  if (size > MAX_READ_BYTES) {
    throw new ToolError(
      `${ws.display(path)} is ${size} bytes, too large to read whole: use search, or run_command with a tool such as head`,
    );
  }
  const bytes = readFileSync(path);
  if (bytes.includes(0))
    throw new ToolError(`${ws.display(path)} is a binary file (${size} bytes)`);
  return bytes.toString("utf8");
}

/** Overlapping matches count too: "aa" in "aaa" could be either, so it is ambiguous. */
function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    count++;
  }
  return count;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
