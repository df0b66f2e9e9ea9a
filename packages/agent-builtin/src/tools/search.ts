import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  optionalBoolean,
  optionalInteger,
  optionalString,
  stringArg,
  type ToolArgs,
} from "./args.js";
import { ToolError } from "./tool-error.js";
import type { Workspace } from "./workspace.js";

/** Folders that are never searched: version control and installed dependencies. */
const SKIPPED_DIRS = new Set([".git", ".hg", ".svn", "node_modules"]);
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_FILES = 20_000;
const DEFAULT_MAX_MATCHES = 100;
const MAX_LINE_CHARS = 200;

/**
 * Lines matching `pattern` (a substring, or a JavaScript regular expression with
 * `regex: true`) in the files under `path`, as `file:line: text`. Symbolic links are not
 * followed, binary and large files are skipped, and the walk and the matches are bounded.
 */
export function searchTool(ws: Workspace, args: ToolArgs): string {
  const pattern = stringArg(args, "pattern");
  if (pattern === "") throw new ToolError(`"pattern" must not be empty`);
  const start = ws.resolve(optionalString(args, "path") ?? ".");
  const maxMatches = optionalInteger(args, "max_results", 1) ?? DEFAULT_MAX_MATCHES;
  const matches = matcher(pattern, optionalBoolean(args, "regex") ?? false);
  const found: string[] = [];
  let files = 0;
  let more = false;

  const visitFile = (path: string): void => {
    let bytes: Buffer;
    try {
      if (statSync(path).size > MAX_FILE_BYTES) return;
      bytes = readFileSync(path);
    } catch {
      return;
    }
    if (bytes.includes(0)) return;
    const lines = bytes.toString("utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!matches(lines[i]!)) continue;
      if (found.length >= maxMatches) {
        more = true;
        return;
      }
      const line = lines[i]!.trim();
      const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
      found.push(`${ws.display(path)}:${i + 1}: ${shown}`);
    }
  };
  const visitDir = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (more || files >= MAX_FILES) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) visitDir(path);
      else if (entry.isFile()) {
        files++;
        visitFile(path);
      }
    }
  };

  if (statSync(start).isDirectory()) visitDir(start);
  else visitFile(start);
  if (found.length === 0)
    return `no matches for ${JSON.stringify(pattern)} in ${ws.display(start)}`;
  if (more) found.push(`[more matches left out: narrow the search or raise max_results]`);
  else if (files >= MAX_FILES) found.push(`[stopped after ${MAX_FILES} files: narrow the path]`);
  return found.join("\n");
}

function matcher(pattern: string, regex: boolean): (line: string) => boolean {
  if (!regex) return (line) => line.includes(pattern);
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern);
  } catch (error) {
    throw new ToolError(`"pattern" is not a valid regular expression: ${(error as Error).message}`);
  }
  return (line) => compiled.test(line);
}
