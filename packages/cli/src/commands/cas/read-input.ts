import { createReadStream, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, UwfError } from "@united-workforce/util";

/** Read a file argument, or stdin when it is "-" or missing. */
export function readInput(cwd: string, file: string | undefined): string {
  try {
    if (file === undefined || file === "-") return readFileSync(0, "utf8");
    return readFileSync(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new UwfError("IO", `cannot read ${file ?? "stdin"}: ${errorMessage(error)}`, {
      hint: "Pass a readable file, or pipe the content on stdin.",
    });
  }
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
