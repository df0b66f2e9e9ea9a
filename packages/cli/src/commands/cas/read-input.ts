import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, UwfError } from "@united-workforce/util";

/** What `cas put` and `cas put-text` take at most: a node is read whole into memory. */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;

/**
 * Read a file argument, or stdin when it is "-" or missing, as text: at most `maxBytes`, so
 * `/dev/zero` or an endless pipe fails at the limit instead of filling memory.
 */
export async function readInput(
  cwd: string,
  file: string | undefined,
  maxBytes = MAX_INPUT_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of inputChunks(cwd, file)) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new UwfError(
        "USAGE",
        `${file === undefined || file === "-" ? "stdin" : file} is over ${maxBytes / 1024 / 1024} MiB, more than a node may hold`,
        { hint: "Store a smaller document; large files belong in the repository, not the store." },
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A file argument, or stdin when it is "-" or missing, as chunks read while they are used: a
 * reader bounds what it holds (`thread import` of `/dev/zero` stops at its limit). A file that
 * cannot be read fails the read with an IO error naming it.
 */
export async function* inputChunks(cwd: string, file: string | undefined): AsyncGenerator<Buffer> {
  const stdin = file === undefined || file === "-";
  const stream = stdin ? process.stdin : createReadStream(resolve(cwd, file));
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    throw new UwfError("IO", `cannot read ${stdin ? "stdin" : file}: ${errorMessage(error)}`, {
      hint: "Pass a readable file, or pipe the content on stdin.",
    });
  } finally {
    if (!stdin) stream.destroy();
  }
}

export function parseJsonInput(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UwfError("USAGE", `${source} is not valid JSON: ${errorMessage(error)}`, {
      hint: "`uwf cas put` takes JSON; use `uwf cas put-text` for plain text.",
    });
  }
}
