import { UwfError } from "@united-workforce/util";

export function missingThreadError(id: string): UwfError {
  return new UwfError("THREAD_NOT_FOUND", `no thread ${id}`, {
    hint: "`uwf thread list` shows the threads",
    details: { thread: id },
  });
}

/** `where` names the pointer's home: a file path, or a table row. */
export function corruptThreadError(id: string, where: string, problem: string): UwfError {
  return new UwfError("THREAD_CORRUPT", `${where}: ${problem}`, {
    hint: "fix it by hand, or fork a new thread from a step: `uwf step fork <step-hash>`",
    details: { thread: id, file: where },
  });
}
