import type { StringDecoder } from "node:string_decoder";
import { nodeStringDecoder } from "../builtin.js";

/** What to do with one output stream of a process (stdout or stderr). */
export interface OutputOptions {
  /** Each chunk as read. */
  onData?(chunk: Buffer): void;
  /**
   * Each line without its end ("\n" or "\r\n"), once it is whole; at the end of the stream, a
   * last line without "\n" too.
   */
  onLine?(line: string): void;
  /**
   * The whole lines read so far, their ends kept, as they come: a read boundary never splits a
   * line (nor anything a caller must see whole, such as a secret it masks). One call per read.
   */
  onWholeLines?(text: string): void;
  /**
   * A line longer than this is passed on as soon as this much of it has arrived, in pieces,
   * rather than held without bound. Default 32 MiB.
   */
  maxLineChars?: number;
  /** Keep the end of the text, up to this many characters. */
  tailChars?: number;
}

/** What was read of an output stream. */
export interface OutputSummary {
  bytes: number;
  /** The end of the text, up to `tailChars` ("" without it). */
  tail: string;
  /** True when the text was longer than the tail. */
  truncated: boolean;
}

const DEFAULT_MAX_LINE_CHARS = 32 * 1024 * 1024;
const CR = 13;

/**
 * Bytes in, text out: lines, whole-line chunks, a bounded tail. Bytes are decoded as UTF-8 with
 * a decoder, so a character split across two reads stays whole; nothing is decoded when no text
 * is asked for.
 */
export class OutputReader {
  #options: OutputOptions;
  #decoder: StringDecoder | null;
  #wantsLines: boolean;
  #maxLineChars: number;
  #pending = "";
  #bytes = 0;
  #tail = "";
  #truncated = false;

  constructor(options: OutputOptions = {}) {
    this.#options = options;
    this.#wantsLines = options.onLine !== undefined || options.onWholeLines !== undefined;
    const wantsText = this.#wantsLines || (options.tailChars ?? 0) > 0;
    this.#decoder = wantsText ? new (nodeStringDecoder().StringDecoder)("utf8") : null;
    this.#maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  }

  write(chunk: Buffer): void {
    this.#bytes += chunk.length;
    this.#options.onData?.(chunk);
    if (this.#decoder) this.#take(this.#decoder.write(chunk), false);
  }

  /** The stream has ended: pass on what is left. */
  end(): void {
    if (this.#decoder) this.#take(this.#decoder.end(), true);
  }

  summary(): OutputSummary {
    return { bytes: this.#bytes, tail: this.#tail, truncated: this.#truncated };
  }

  #take(text: string, flush: boolean): void {
    const keep = this.#options.tailChars ?? 0;
    if (keep > 0 && text !== "") {
      this.#tail += text;
      if (this.#tail.length > keep) {
        this.#tail = this.#tail.slice(-keep);
        this.#truncated = true;
      }
    }
    if (this.#wantsLines) this.#passLines(this.#pending + text, flush);
  }

  #passLines(text: string, flush: boolean): void {
    let cut = text.lastIndexOf("\n") + 1;
    if (flush || text.length - cut > this.#maxLineChars) cut = text.length;
    this.#pending = cut === text.length ? "" : text.slice(cut);
    if (cut === 0) return;
    const { onLine, onWholeLines } = this.#options;
    onWholeLines?.(cut === text.length ? text : text.slice(0, cut));
    if (onLine === undefined) return;
    let start = 0;
    for (let at = text.indexOf("\n"); at !== -1 && at < cut; at = text.indexOf("\n", start)) {
      const end = at > start && text.charCodeAt(at - 1) === CR ? at - 1 : at;
      onLine(text.slice(start, end));
      start = at + 1;
    }
    if (start < cut) onLine(text.slice(start, cut));
  }
}
