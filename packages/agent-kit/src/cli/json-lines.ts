import { isPlainObject } from "@united-workforce/protocol";
/** A stdout line that is not a JSON object: CLIs mix in banners, warnings and stack traces. */
export interface InvalidJsonLine {
  line: string;
  error: string;
}

export type JsonLine =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; invalid: InvalidJsonLine };

/** One line of a JSON-lines stream; a blank line is null (skipped, not reported). */
export function parseJsonLine(line: string): JsonLine | null {
  const text = line.trim();
  if (text === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, invalid: { line, error: (error as Error).message } };
  }
  if (!isPlainObject(value)) {
    return { ok: false, invalid: { line, error: "not a JSON object" } };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * A line handler for `spawnAgentCli`'s `onStdoutLine`: JSON objects go to `onValue`, anything
 * else to `onInvalid` (so the adapter can report it instead of failing or dropping it).
 */
export function jsonLineHandler(
  onValue: (value: Record<string, unknown>) => void,
  onInvalid: (invalid: InvalidJsonLine) => void = () => {},
): (line: string) => void {
  return (line) => {
    const parsed = parseJsonLine(line);
    if (parsed === null) return;
    if (parsed.ok) onValue(parsed.value);
    else onInvalid(parsed.invalid);
  };
}

/** Every JSON object in a whole JSON-lines text (a recorded stream), and the lines that were not. */
export function readJsonLines(text: string): {
  values: Record<string, unknown>[];
  invalid: InvalidJsonLine[];
} {
  const values: Record<string, unknown>[] = [];
  const invalid: InvalidJsonLine[] = [];
  const handle = jsonLineHandler(
    (value) => values.push(value),
    (line) => invalid.push(line),
  );
  for (const line of text.split("\n")) handle(line.endsWith("\r") ? line.slice(0, -1) : line);
  return { values, invalid };
}
