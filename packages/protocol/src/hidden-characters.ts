/**
 * Characters a reader cannot see, or that steer how text shows: C0 and C1 controls, format
 * characters (zero-width spaces and joiners, bidi overrides and isolates, the BOM, soft hyphen,
 * tag characters), the rest of Unicode's default-ignorable code points (variation selectors,
 * fillers, the combining grapheme joiner), line and paragraph separators, spaces other than
 * U+0020, private-use code points and lone surrogates. A `$status` or an id holding
 * one prints the same as another that routes elsewhere, so they are refused there.
 */
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, "gu");

/** The first hidden character of `text`: its code point and its index (in UTF-16 units). */
export function hiddenCharacter(text: string): { codePoint: number; index: number } | null {
  const match = HIDDEN.exec(text);
  return match === null ? null : { codePoint: match[0].codePointAt(0)!, index: match.index };
}

/** `text` quoted, each hidden character written as `\u{…}`, so a message shows where it is. */
export function quoteVisibly(text: string): string {
  return `"${text.replace(/["\\]/g, "\\$&").replace(HIDDEN_ALL, (c) => `\\u{${codePointName(c.codePointAt(0)!)}}`)}"`;
}

/** "an invisible or control character (U+200B at position 5)", or null when every one shows. */
export function hiddenCharacterNote(text: string): string | null {
  const found = hiddenCharacter(text);
  if (found === null) return null;
  return `an invisible or control character (U+${codePointName(found.codePoint)} at position ${found.index + 1})`;
}

/**
 * The problem with `text` as `what` (`"$status"`, `status`), or null when every character
 * shows: `"$status" "done\u{200B}" holds an invisible or control character (U+200B at
 * position 5)`. One wording for every place that refuses them.
 */
export function hiddenCharacterProblem(what: string, text: string): string | null {
  const note = hiddenCharacterNote(text);
  return note === null ? null : `${what} ${quoteVisibly(text)} holds ${note}`;
}

function codePointName(codePoint: number): string {
  return codePoint.toString(16).toUpperCase().padStart(4, "0");
}
