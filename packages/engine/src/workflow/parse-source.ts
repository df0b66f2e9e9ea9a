import { isUtf8 } from "node:buffer";
import { editDistance } from "@united-workforce/util";
import {
  Composer,
  type CST,
  type Document,
  isScalar,
  Lexer,
  LineCounter,
  Parser,
  type Scalar,
  type ScalarTag,
} from "yaml";

// A workflow file's bytes to text, and text to a YAML document or a JSON value, with every
// problem worded for the person who wrote the file: `name:line:col: what happened: what to do`.
// Problems are pushed onto `problems`; a function that found one returns null.

/**
 * How deep collections may nest, counting YAML aliases and every `!include`. The yaml library
 * recurses once per level and overflows the stack near 800 levels (and an overflow that lands
 * while V8 compiles a regular expression kills the process outright), so deeper input is
 * refused before it is composed. A real workflow, schemas included, stays under 20.
 */
export const MAX_NESTING_DEPTH = 100;

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** Byte order marks of encodings uwf does not read; UTF-32 LE starts like UTF-16 LE, so first. */
const FOREIGN_BOMS = [
  { encoding: "UTF-32", bom: [0xff, 0xfe, 0x00, 0x00] },
  { encoding: "UTF-32", bom: [0x00, 0x00, 0xfe, 0xff] },
  { encoding: "UTF-16", bom: [0xff, 0xfe] },
  { encoding: "UTF-16", bom: [0xfe, 0xff] },
];

/**
 * The text of a UTF-8 file, without its byte order mark if it has one. Decoding would turn any
 * other encoding into U+FFFD characters without a word, so it is refused instead.
 */
export function decodeUtf8(bytes: Buffer, name: string, problems: string[]): string | null {
  const foreign = FOREIGN_BOMS.find(({ bom }) => startsWith(bytes, bom));
  if (foreign !== undefined) {
    problems.push(
      `${name}: the file is ${foreign.encoding} (it starts with a ${foreign.encoding} byte order mark): save the file as UTF-8`,
    );
    return null;
  }
  const start = startsWith(bytes, UTF8_BOM) ? UTF8_BOM.length : 0;
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    const before = bytes.toString("utf8", start, offset);
    const byte = bytes[offset]!.toString(16).toUpperCase().padStart(2, "0");
    problems.push(
      `${name}:${lineAndColumn(before, before.length)}: the file is not valid UTF-8: byte 0x${byte} at offset ${offset} (Latin-1 or Windows-1252 text?): save the file as UTF-8`,
    );
    return null;
  }
  return bytes.toString("utf8", start);
}

function startsWith(bytes: Buffer, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}

/** Offset of the first byte that starts no well-formed UTF-8 sequence (Unicode table 3-7). */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0;
      if (lead === 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90;
      if (lead === 0xf4) high = 0x8f;
    } else return i;
    const second = bytes[i + 1];
    if (second === undefined || second < low || second > high) return i;
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** `line:col` (from 1) of a character offset, as the YAML parser reports positions. */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return `${line}:${offset - lineStart + 1}`;
}

/** Thrown by the token stream as soon as nesting passes the limit, before anything recurses. */
class NestingTooDeep extends Error {
  constructor(readonly offset: number) {
    super(`nesting is too deep (over ${MAX_NESTING_DEPTH} levels)`);
  }
}

/** What `Parser.parse` yields, refusing a document that nests deeper than the limit. */
function* tokensWithinDepth(source: string, lineCounter: LineCounter): Generator<CST.Token> {
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0);
  for (const lexeme of new Lexer().lex(source)) {
    const offset = parser.offset;
    yield* parser.next(lexeme);
    // The parser's stack holds the document, each open collection and at most one scalar.
    if (parser.stack.length > MAX_NESTING_DEPTH + 2) throw new NestingTooDeep(offset);
  }
  yield* parser.end();
}

/**
 * The one YAML document in `source`, or null after pushing its problems (the parser's warnings
 * count: an unknown tag would otherwise silently become a plain string).
 */
export function parseYamlSource(
  source: string,
  name: string,
  customTags: ScalarTag[],
  problems: string[],
): Document.Parsed | null {
  const lineCounter = new LineCounter();
  const at = (offset: number): string => {
    const { line, col } = lineCounter.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  // The parser reports a duplicate key without naming it; the comparison sees the key. The parser
  // raises the error as soon as the comparison says equal, so the nth error is the nth key here.
  const duplicateKeys: string[] = [];
  const composer = new Composer({
    customTags,
    uniqueKeys: (a, b) => {
      if (!isScalar(a) || !isScalar(b)) return false;
      // yaml compares every pair of keys in a mapping, so the common case (strings) goes first.
      const same =
        typeof a.value === "string" && typeof b.value === "string"
          ? a.value === b.value
          : propertyName(a) !== undefined && propertyName(a) === propertyName(b);
      if (same) duplicateKeys.push(duplicateName(b));
      return same;
    },
  });

  let doc: Document.Parsed | undefined;
  const found: string[] = [];
  try {
    for (const next of composer.compose(
      tokensWithinDepth(source, lineCounter),
      true,
      source.length,
    )) {
      if (doc === undefined) {
        doc = next;
        continue;
      }
      const marker = source.startsWith("---", next.range[0]) ? ' after "---"' : "";
      found.push(
        `${at(next.range[0])}: a workflow file holds one YAML document; this one has a second${marker}: remove it or split the file`,
      );
      break;
    }
  } catch (error) {
    if (!(error instanceof NestingTooDeep)) throw error;
    problems.push(
      `${at(error.offset)}: ${error.message}; a workflow never needs that many: flatten the structure`,
    );
    return null;
  }
  if (doc === undefined) return null;

  let duplicates = 0;
  const described = [...doc.errors, ...doc.warnings].map((problem) => {
    const key = problem.code === "DUPLICATE_KEY" ? duplicateKeys[duplicates++] : undefined;
    return `${at(problem.pos[0])}: ${describe(problem, key, source)}`;
  });
  problems.push(...described, ...found);
  return described.length + found.length === 0 ? doc : null;
}

/**
 * The property a scalar key becomes in the parsed object, as `yaml` names it: `1` and `"1"`
 * are distinct YAML keys but the same property, so one would silently replace the other.
 */
function propertyName(key: Scalar): string | undefined {
  if (key.value === null) return "";
  return typeof key.value === "object" ? undefined : String(key.value);
}

/**
 * A duplicate key as the author wrote it; when YAML reads it as something else (`null:` and `~:`
 * are both a null key, `1.0:` is 1), what it was read as, and that quoting means the word.
 */
function duplicateName(key: Scalar): string {
  const name = propertyName(key)!;
  const written = typeof key.source === "string" ? key.source : name;
  if (written === name || key.type === "QUOTE_DOUBLE" || key.type === "QUOTE_SINGLE") {
    return JSON.stringify(name);
  }
  const read = name === "" ? "a null" : `"${name}"`;
  return `${written} (which YAML reads as ${read}; quote it to mean the word)`;
}

const UNRESOLVED_TAG = "Unresolved tag: ";

function describe(
  problem: { code: string; message: string; pos: [number, number] },
  duplicateKey: string | undefined,
  source: string,
): string {
  if (problem.code === "DUPLICATE_KEY" && duplicateKey !== undefined) {
    return `key ${duplicateKey} appears twice in this mapping; keep one`;
  }
  if (problem.code === "TAG_RESOLVE_FAILED" && problem.message.startsWith(UNRESOLVED_TAG)) {
    // The tag as written (`!!x` is reported by its resolved name, tag:yaml.org,2002:x).
    const written = source.slice(problem.pos[0], problem.pos[1]);
    const tag = written.startsWith("!") ? written : problem.message.slice(UNRESOLVED_TAG.length);
    // `!include` on a sequence or mapping: the tag is known, its value is not a path.
    if (tag === "!include") {
      return '!include takes one file path (a plain string), e.g. "roles: !include roles.yaml"';
    }
    return editDistance(tag, "!include") <= 2
      ? `unknown tag ${tag}: did you mean !include?`
      : `unknown tag ${tag}: uwf knows only !include`;
  }
  return problem.message;
}

/**
 * The value of a JSON file. `JSON.parse` keeps the last of two equal keys without a word, while
 * YAML files refuse them; so the text, once known to be valid, is scanned for them too.
 */
export function parseJsonSource(source: string, name: string, problems: string[]): unknown {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(reason);
    const where =
      position === null ? name : `${name}:${lineAndColumn(source, Number(position[1]))}`;
    problems.push(`${where}: invalid JSON: ${reason}`);
    return null;
  }
  const duplicate = findDuplicateJsonKey(source);
  if (duplicate !== null) {
    problems.push(
      `${name}:${lineAndColumn(source, duplicate.offset)}: key ${JSON.stringify(duplicate.key)} appears twice in this object; keep one`,
    );
    return null;
  }
  return value;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first key that repeats within one object of `source`, which must be valid JSON: that
 * leaves only strings to skip and brackets to follow, in one pass without recursion.
 */
function findDuplicateJsonKey(source: string): { key: string; offset: number } | null {
  // One entry per open bracket: the keys seen so far in an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let atKey = false;
  for (let i = 0; i < source.length; i++) {
    const char = source.charCodeAt(i);
    if (char === QUOTE) {
      const end = closingQuote(source, i);
      const keys = open.at(-1);
      if (atKey && keys) {
        const quoted = source.slice(i, end + 1);
        const key: string = quoted.includes("\\") ? JSON.parse(quoted) : quoted.slice(1, -1);
        if (keys.has(key)) return { key, offset: i };
        keys.add(key);
        atKey = false;
      }
      i = end;
    } else if (char === 0x7b /* { */) {
      open.push(new Set());
      atKey = true;
    } else if (char === 0x5b /* [ */) {
      open.push(null);
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      open.pop();
    } else if (char === 0x2c /* , */) {
      atKey = open.at(-1) instanceof Set;
    }
  }
  return null;
}

/** Offset of the quote that ends the string opening at `start` (one not escaped by `\`). */
function closingQuote(source: string, start: number): number {
  let quote = source.indexOf('"', start + 1);
  for (;;) {
    if (quote === -1) return source.length;
    let backslashes = 0;
    while (source.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = source.indexOf('"', quote + 1);
  }
}
