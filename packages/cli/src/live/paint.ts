import { textWidth, truncate } from "./text-width.js";

const STYLE = {
  green: ["\u001b[32m", "\u001b[39m"],
  red: ["\u001b[31m", "\u001b[39m"],
  yellow: ["\u001b[33m", "\u001b[39m"],
  cyan: ["\u001b[36m", "\u001b[39m"],
  dim: ["\u001b[2m", "\u001b[22m"],
  bold: ["\u001b[1m", "\u001b[22m"],
} as const;
type Style = keyof typeof STYLE;

/** A piece of a line, and how it is coloured when colour is on. */
export type Segment = readonly [text: string, style?: Style];

/** Segments fitted to `width` columns, coloured when `color` is on. */
export function paint(segments: readonly Segment[], width: number, color: boolean): string {
  let left = width;
  let out = "";
  for (const [text, style] of segments) {
    if (left <= 0) break;
    const piece = truncate(text, left);
    left -= textWidth(piece);
    out += color && style ? `${STYLE[style][0]}${piece}${STYLE[style][1]}` : piece;
  }
  return out;
}
