import { sanitizeTerminalText } from "@united-workforce/util";

/** A child's reason as one line a terminal can show: reports and tables hold one line each. */
export function firstLine(text: string): string {
  return sanitizeTerminalText(text.split("\n")[0] ?? "").trim();
}

/** `1 child`, `3 children`, `2 steps`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : noun === "child" ? "ren" : "s"}`;
}
