import { docsUrl, errorMessage, UwfError } from "@united-workforce/util";
import { type Document, LineCounter, parseDocument } from "yaml";

export const FIX_BY_HAND_HINT = `Fix the file by hand; ${docsUrl("config.md")} shows the keys.`;

/**
 * config.yaml's text as a YAML document. A syntax error names the file, line and column with
 * the parser's message, but never the parser's code frame: that quotes the source lines, and in
 * this file they may hold an API key, which every command would then print until it is fixed.
 */
export function parseConfigDocument(file: string, text: string): Document.Parsed {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, lineCounter });
  const error = document.errors[0];
  if (error !== undefined) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new UwfError(
      "CONFIG_INVALID",
      `${file} is not valid YAML: line ${line}, column ${col}: ${error.message}`,
      { hint: FIX_BY_HAND_HINT, details: { file, line, column: col } },
    );
  }
  return document;
}

/** How many aliases config.yaml may dereference, as for a workflow file. */
const MAX_ALIAS_COUNT = 100;

/**
 * The document's value. A few lines of nested aliases can expand to millions of nodes (an
 * "alias bomb"); the parser refuses that by throwing, which is the file's fault, not uwf's.
 */
export function configDocumentValue(file: string, document: Document): unknown {
  try {
    return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    throw new UwfError(
      "CONFIG_INVALID",
      `${file}: refused to expand YAML aliases (${errorMessage(error)}); config.yaml may dereference at most ${MAX_ALIAS_COUNT} aliases`,
      { hint: FIX_BY_HAND_HINT, details: { file } },
    );
  }
}
