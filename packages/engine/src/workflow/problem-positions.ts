import { readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type ScalarTag,
} from "yaml";
import { type ProblemCode, problemPath } from "./problem-paths.js";

/** One workflow problem as `--format json` gives it. */
export interface WorkflowProblem {
  severity: "error" | "warning";
  code: ProblemCode | "FILE";
  message: string;
  /** Keys from the top-level mapping to the node, as written; null when not one place. */
  path: string[] | null;
  /** The file the node is written in (an included one where it comes from one), relative to the workflow's folder. */
  file: string;
  line: number | null;
  column: number | null;
}

/** Read only to find positions: an include stays a marker to follow, never expanded. */
class IncludeMarker {
  constructor(readonly target: string) {}
}

const includeMarker: ScalarTag = {
  tag: "!include",
  resolve: (value) => new IncludeMarker(value),
};

interface ParsedFile {
  doc: ReturnType<typeof parseDocument>;
  lines: LineCounter;
}

/**
 * Every message with where it is written: each is looked up in the top-level file and, through
 * `!include`, in the file that holds it. Files are parsed again here, once each, only when
 * there is a problem to place. A message the file reader already placed keeps its place.
 */
export function placeProblems(
  file: string,
  root: string,
  errors: readonly string[],
  warnings: readonly string[],
): WorkflowProblem[] {
  const parsed = new Map<string, ParsedFile | null>();
  const open = (real: string): ParsedFile | null => {
    if (!parsed.has(real)) parsed.set(real, parseForPositions(real));
    return parsed.get(real) ?? null;
  };
  const place = (message: string, severity: WorkflowProblem["severity"]): WorkflowProblem => {
    const placed = readerProblem(message, severity);
    if (placed !== null) return placed;
    const { code, path } = problemPath(message);
    const found = path === null ? { file, line: null, column: null } : findNode(file, path, open);
    return {
      severity,
      code,
      message,
      path,
      file: displayName(found.file, root),
      line: found.line,
      column: found.column,
    };
  };
  return [
    ...errors.map((message) => place(message, "error")),
    ...warnings.map((message) => place(message, "warning")),
  ];
}

/**
 * The problems of a file that could not be read (YAML syntax, includes, encodings): the reader
 * already names the file, and the line and column where it knows them.
 */
export function readerProblems(file: string, errors: readonly string[]): WorkflowProblem[] {
  return errors.map(
    (message) =>
      readerProblem(message, "error") ?? {
        severity: "error",
        code: "FILE",
        message,
        path: null,
        file,
        line: null,
        column: null,
      },
  );
}

/** `name:line:col: ` or `name: ` as the file reader writes it, at the start of a message. */
/** Told from a message's own opening (`inputs.properties.x: …`) by a file's extension. */
const FILE_EXTENSION = /\.(?:ya?ml|json|md|markdown|txt)$/i;
const READER_PREFIX = /^([^\s:"]+?)(?::(\d+):(\d+))?: /;

function readerProblem(
  message: string,
  severity: WorkflowProblem["severity"],
): WorkflowProblem | null {
  const placed = READER_PREFIX.exec(message);
  if (placed === null || !FILE_EXTENSION.test(placed[1]!)) return null;
  return {
    severity,
    code: "FILE",
    message: message.slice(placed[0].length),
    path: null,
    file: placed[1]!,
    line: placed[2] === undefined ? null : Number(placed[2]),
    column: placed[3] === undefined ? null : Number(placed[3]),
  };
}

/** A problem as one line: `file:line:col: message`. */
export function problemLine(problem: WorkflowProblem): string {
  const at =
    problem.line === null ? problem.file : `${problem.file}:${problem.line}:${problem.column}`;
  return `${at}: ${problem.message}`;
}

function parseForPositions(real: string): ParsedFile | null {
  try {
    const lines = new LineCounter();
    // The loader has read every file already, within its nesting, alias and size limits.
    const doc = parseDocument(readFileSync(real, "utf8"), {
      customTags: [includeMarker],
      lineCounter: lines,
    });
    return { doc, lines };
  } catch {
    return null;
  }
}

/**
 * The deepest node of `path` that exists (the key of its last step, so an unknown key points at
 * itself), following `!include` into the file it names.
 */
function findNode(
  file: string,
  path: readonly string[],
  open: (real: string) => ParsedFile | null,
): { file: string; line: number | null; column: number | null } {
  let current = file;
  let parsed = open(current);
  if (parsed === null) return { file, line: null, column: null };
  let node: Node | null = parsed.doc.contents as Node | null;
  let offset = node?.range?.[0] ?? 0;
  for (const key of path) {
    node = resolveAlias(node, parsed);
    const included = includeTarget(node);
    if (included !== null) {
      const next = isAbsolute(included) ? included : resolve(dirname(current), included);
      const inner = open(next);
      if (inner === null) break;
      current = next;
      parsed = inner;
      node = resolveAlias(parsed.doc.contents as Node | null, parsed);
      offset = node?.range?.[0] ?? 0;
    }
    if (isSeq(node) && /^\d+$/.test(key)) {
      const item = node.items[Number(key)] as Node | undefined;
      if (item === undefined) break;
      offset = item.range?.[0] ?? offset;
      node = item;
      continue;
    }
    if (!isMap(node)) break;
    const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    if (pair === undefined) break;
    offset = (pair.key as Node).range?.[0] ?? offset;
    node = pair.value as Node | null;
  }
  const { line, col } = parsed.lines.linePos(offset);
  return { file: current, line, column: col };
}

function resolveAlias(node: Node | null, parsed: ParsedFile): Node | null {
  return isAlias(node) ? ((node.resolve(parsed.doc) as Node | undefined) ?? null) : node;
}

function includeTarget(node: Node | null): string | null {
  return isScalar(node) && node.value instanceof IncludeMarker ? node.value.target : null;
}

function displayName(real: string, root: string): string {
  const name = relative(root, real);
  return name.startsWith("..") ? real : name;
}
