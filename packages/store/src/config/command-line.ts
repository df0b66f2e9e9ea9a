import { UwfError } from "@united-workforce/util";

/** `line` with its first word replaced by `word`, quoted so `splitCommand` reads it back. */
export function replaceFirstWord(line: string, word: string): string {
  const first = commandWords(line)[0];
  return `${quoteWord(word)}${first === undefined ? "" : line.slice(first.end)}`;
}

/** Words as one command line that `splitCommand` reads back as the same words. */
export function joinCommand(words: readonly string[]): string {
  return words.map(quoteWord).join(" ");
}

/** `word` as one word of a command line: bare when it can be, else in single quotes. */
function quoteWord(word: string): string {
  if (word !== "" && !/[\s"'\\]/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Split a command line into words as a POSIX shell would, without running one: whitespace
 * separates words; single quotes keep everything inside; double quotes keep everything but a
 * backslash before `"` or `\`; outside quotes a backslash keeps the next character; quoted and
 * bare parts join into one word (`--x="a b"` is `--x=a b`). No expansion of any kind.
 */
export function splitCommand(line: string): string[] {
  return commandWords(line).map(({ word }) => word);
}

function commandWords(line: string): { word: string; end: number }[] {
  const words: { word: string; end: number }[] = [];
  let word: string | null = null;
  let i = 0;
  const unclosed = (quote: string) =>
    new UwfError("USAGE", `the command line ${JSON.stringify(line)} has an unclosed ${quote}`, {
      hint: "Close the quote, or escape it with a backslash.",
    });
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      if (word !== null) words.push({ word, end: i });
      word = null;
      i++;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw unclosed("'");
      word = (word ?? "") + line.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let text = "";
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i++;
        text += line[i];
      }
      if (i >= line.length) throw unclosed('"');
      word = (word ?? "") + text;
      i++;
    } else if (c === "\\" && i + 1 < line.length) {
      word = (word ?? "") + line[i + 1];
      i += 2;
    } else {
      word = (word ?? "") + c;
      i++;
    }
  }
  if (word !== null) words.push({ word, end: line.length });
  return words;
}
