/**
 * Cut a tool result to `maxBytes` of UTF-8 (never inside a character), saying how much was
 * left out, so one big file or command output cannot fill the model's context.
 */
export function boundOutput(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character's start.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  const dropped = bytes.length - end;
  return `${bytes.subarray(0, end).toString("utf8")}\n[… ${dropped} more bytes cut: ask for less, e.g. a line range or a narrower search]`;
}
