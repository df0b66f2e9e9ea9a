import { UwfError } from "@united-workforce/util";
import { keyPath } from "./schema-check.js";

/**
 * `providers.openai.apiKey` → ["providers", "openai", "apiKey"]. A segment holding a dot is
 * written in brackets, as error messages show it: `agents["my.agent"].command`.
 */
export function parseKeyPath(text: string): string[] {
  const segments: string[] = [];
  let rest = text;
  let first = true;
  while (rest !== "") {
    const bracket = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (bracket) {
      segments.push(JSON.parse(bracket[1]!) as string);
      rest = rest.slice(bracket[0].length);
    } else {
      const plain = (first ? /^([^.[\]]+)/ : /^\.([^.[\]]+)/).exec(rest);
      if (!plain) throw badKey(text);
      segments.push(plain[1]!);
      rest = rest.slice(plain[0].length);
    }
    first = false;
  }
  if (segments.length === 0) throw badKey(text);
  return segments;
}

/** The inverse of `parseKeyPath`. */
export function formatKeyPath(segments: readonly string[]): string {
  return segments.reduce((path, segment) => keyPath(path, segment), "");
}

function badKey(text: string): UwfError {
  return new UwfError("USAGE", `${JSON.stringify(text)} is not a config key`, {
    hint: 'Write keys with dots, e.g. providers.openai.baseUrl, and a name holding a dot in brackets: agents["my.agent"].command.',
  });
}
