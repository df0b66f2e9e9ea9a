/*
 * Text from outside (an adapter's output, a config value) passes through these before it
 * reaches a terminal or a command line suggested to the user.
 */

// Escape sequences (ECMA-48): strings such as OSC (window titles, hyperlinks, clipboard
// writes) up to their terminator, CSI (colours, cursor moves, screen clears), and the short
// ESC forms. 8-bit C1 introducers count too: some terminals act on them.
const STRING_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point.
  /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\u0007|\u001b\\|\u009c)/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point.
const CONTROL_SEQUENCE = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point.
const SHORT_ESCAPE = /\u001b[ -/]*[0-~]?/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point.
const OTHER_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Make text safe to print on a terminal: escape sequences are removed (colours are lost, a
 * forged prompt, a cleared screen or a rewritten title cannot happen), CR LF becomes LF, and
 * every other C0/C1 control character except newline and tab becomes U+FFFD, visible.
 */
export function sanitizeTerminalText(text: string): string {
  return text
    .replace(STRING_SEQUENCE, "")
    .replace(CONTROL_SEQUENCE, "")
    .replace(SHORT_ESCAPE, "")
    .replace(/\r\n/g, "\n")
    .replace(OTHER_CONTROL, "\uFFFD");
}

/**
 * Quote a value for a POSIX shell, for commands we suggest (`Run: which <cmd>`): a value from
 * config or data must reach the shell as one word, whatever it contains. Plain words are left
 * as they are, so the usual suggestion reads naturally.
 */
export function shellQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
