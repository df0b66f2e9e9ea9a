import { UwfError } from "../errors.js";

/** What Node throws for a failed system call: `code` is the errno name (`ENOSPC`, …). */
export interface ErrnoError extends Error {
  code: string;
  errno?: number;
  syscall?: string;
  path?: string;
  dest?: string;
}

export function isErrnoError(error: unknown): error is ErrnoError {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code);
}

/** Plain words for the errors a user can act on; anything else keeps Node's own text. */
const WHAT_HAPPENED: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exceeded",
  EROFS: "the file system is read-only",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EIO: "an input/output error occurred (the disk or network file system failed)",
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "it is a directory",
  EMFILE: "this process has too many open files",
  ENFILE: "the system has too many open files",
  EFBIG: "the file is too large",
  ENAMETOOLONG: "the file name is too long",
  ELOOP: "too many symbolic links",
};

const WHAT_TO_DO: Record<string, string> = {
  ENOSPC: "Free some disk space and run the command again.",
  EDQUOT: "Free some space under your quota and run the command again.",
  EROFS:
    "Point UWF_HOME at a writable folder (or remount the file system read-write) and run the command again.",
  EACCES:
    "Check the owner and permissions of the file and its folder (uwf must be able to write there), or set UWF_HOME to a folder you own.",
  EPERM:
    "Check the owner and permissions of the file and its folder (uwf must be able to write there), or set UWF_HOME to a folder you own.",
  EIO: "Check the disk (or network mount) and run the command again.",
  EMFILE: "Close other programs or raise the open-file limit (ulimit -n), then run it again.",
  ENFILE: "Close other programs or raise the open-file limit (ulimit -n), then run it again.",
};

/**
 * A failed file operation as an IO error that names the file and says what happened and what
 * to do, so a full disk reads as a full disk instead of as a bug.
 */
export function ioError(error: unknown, path?: string): UwfError {
  if (error instanceof UwfError) return error;
  const errno = isErrnoError(error) ? error : null;
  if (errno?.syscall === "uv_cwd") {
    return new UwfError(
      "IO",
      "the current directory no longer exists (it was deleted or moved away)",
      { hint: "cd to an existing directory and run the command again.", cause: error },
    );
  }
  const code = errno?.code ?? "";
  const file = path ?? errno?.path ?? null;
  const what =
    code === ""
      ? error instanceof Error
        ? error.message
        : String(error)
      : `${WHAT_HAPPENED[code] ?? stripCodePrefix(errno!.message, code)} (${code})`;
  const message = file
    ? `${file}: ${what}`
    : `a file operation${errno?.syscall ? ` (${errno.syscall})` : ""} failed: ${what}`;
  return new UwfError("IO", message, {
    hint: WHAT_TO_DO[code] ?? "Check the file and its folder, then run the command again.",
    cause: error,
    details: code ? { errno: code, ...(file ? { path: file } : {}) } : undefined,
  });
}

/** Node's message is `ECODE: text, syscall 'path'`; keep the text only. */
function stripCodePrefix(message: string, code: string): string {
  return message
    .replace(new RegExp(`^${code}: `), "")
    .replace(/, \w+ '.*'$/, "")
    .replace(/, \w+$/, "");
}
