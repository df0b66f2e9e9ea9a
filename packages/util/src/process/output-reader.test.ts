import { describe, expect, it } from "vitest";
import { type OutputOptions, OutputReader } from "./output-reader.js";

/** Feed `chunks` to a reader, end it, and return what it passed on. */
function read(chunks: (string | Buffer)[], options: OutputOptions = {}) {
  const lines: string[] = [];
  const wholeLines: string[] = [];
  const reader = new OutputReader({
    onLine: (line) => lines.push(line),
    onWholeLines: (text) => wholeLines.push(text),
    ...options,
  });
  for (const chunk of chunks) reader.write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  reader.end();
  return { lines, wholeLines, ...reader.summary() };
}

describe("OutputReader", () => {
  it("passes on whole lines without their ends, the last one without a newline too", () => {
    expect(read(['{"a":1}\r\nfir', "st\n\nlast"]).lines).toEqual(['{"a":1}', "first", "", "last"]);
  });

  it("keeps a multi-byte character split across reads whole", () => {
    const euro = Buffer.from("€");
    const result = read(["price: ", euro.subarray(0, 1), euro.subarray(1), "\n"], {
      tailChars: 100,
    });
    expect(result.lines).toEqual(["price: €"]);
    expect(result.tail).toBe("price: €\n");
    expect(result.bytes).toBe(11);
  });

  it("passes on whole lines, their ends kept, once per read", () => {
    expect(read(["one\ntw", "o\r\nthree\nfo", "ur"]).wholeLines).toEqual([
      "one\n",
      "two\r\nthree\n",
      "four",
    ]);
  });

  it("passes a line longer than the bound on in pieces instead of holding it", () => {
    const result = read(["0123456789", "abcdef", "ghij\nend"], { maxLineChars: 12 });
    expect(result.lines).toEqual(["0123456789abcdef", "ghij", "end"]);
  });

  it("keeps a bounded tail and says when it is only the end", () => {
    expect(read(["abc\n", "def\n"], { tailChars: 5 })).toMatchObject({
      tail: "\ndef\n",
      truncated: true,
      bytes: 8,
    });
    expect(read(["abc"], { tailChars: 5 })).toMatchObject({ tail: "abc", truncated: false });
  });

  it("counts and passes on raw chunks without decoding anything when no text is asked for", () => {
    const chunks: Buffer[] = [];
    const reader = new OutputReader({ onData: (chunk) => chunks.push(chunk) });
    reader.write(Buffer.from([0xff, 0x00]));
    reader.end();
    expect(Buffer.concat(chunks)).toEqual(Buffer.from([0xff, 0x00]));
    expect(reader.summary()).toEqual({ bytes: 2, tail: "", truncated: false });
  });
});
