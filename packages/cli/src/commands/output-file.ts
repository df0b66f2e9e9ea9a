import {
  closeSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { ioError, UwfError, writeFileAtomic } from "@united-workforce/util";

/** How an `outputFile` writer wrote: a new file, a file replaced, or into a device or FIFO. */
export type OutputWrite = "created" | "replaced" | "written-into";

/**
 * Where a command's `-o <file>` writes, checked before the command does its work, and the
 * writer that writes there; it never replaces what is not a regular file. A new file, or a
 * regular one (with `force`), is written whole by a rename, private to its owner; through a
 * symbolic link, the file it names is replaced and the link stays. A character device or a
 * FIFO (`/dev/null`, `/dev/stdout`, a named pipe) is written into, as a shell's `>` does, and
 * stays what it is. A directory, a socket, a block device (a disk) or a link to nothing is
 * refused. Every command with `-o` writes through here.
 */
export function outputFile(
  file: string,
  options: { force: boolean },
): (data: string | Uint8Array) => OutputWrite {
  const target = outputTarget(file, options);
  return (data) => {
    if (target.kind === "written-into") {
      try {
        // Into what is there, as a shell's `>` does: it stays what it is.
        writeFileSync(file, data);
      } catch (error) {
        throw ioError(error, file);
      }
    } else {
      writeFileAtomic(target.path, data, { mode: 0o600 });
    }
    return target.kind;
  };
}

/** An `outputFile` written piece by piece: `end` completes it, `abandon` leaves no trace. */
export interface OutputStream {
  write(data: string): void;
  /** The bytes written; a new or replaced file appears here, whole. */
  end(): { bytes: number; how: OutputWrite };
  /** After a failure: a new or replaced file is left as it was. */
  abandon(): void;
}

/** Bytes gathered before a write call: few calls, and a bounded buffer. */
const STREAM_CHUNK = 1024 * 1024;

/**
 * `outputFile`'s rules for output too large to hold: a regular file is written to a private
 * temporary file beside it and renamed into place by `end`; a device or FIFO is written into
 * as the pieces come.
 */
export function outputStream(file: string, options: { force: boolean }): OutputStream {
  const target = outputTarget(file, options);
  const into =
    target.kind === "written-into"
      ? file
      : join(dirname(target.path), `.tmp-${process.pid}-${Date.now()}`);
  let fd: number;
  try {
    fd = target.kind === "written-into" ? openSync(into, "w") : openSync(into, "wx", 0o600);
  } catch (error) {
    throw ioError(error, file);
  }
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let bytes = 0;
  const flush = () => {
    const chunk = Buffer.concat(pending, pendingBytes);
    for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
    pending = [];
    pendingBytes = 0;
  };
  const fail = (error: unknown): never => {
    abandon();
    throw ioError(error, file);
  };
  const abandon = () => {
    try {
      closeSync(fd);
    } catch {
      // Already failing: that error is the one worth reporting.
    }
    if (target.kind !== "written-into") rmSync(into, { force: true });
  };
  return {
    write(data) {
      const chunk = Buffer.from(data, "utf8");
      pending.push(chunk);
      pendingBytes += chunk.length;
      bytes += chunk.length;
      if (pendingBytes < STREAM_CHUNK) return;
      try {
        flush();
      } catch (error) {
        fail(error);
      }
    },
    end() {
      try {
        flush();
        // A network file system may report a full disk or quota only when the file is closed.
        closeSync(fd);
        if (target.kind !== "written-into") renameSync(into, target.path);
      } catch (error) {
        if (target.kind !== "written-into") rmSync(into, { force: true });
        throw ioError(error, file);
      }
      return { bytes, how: target.kind };
    },
    abandon,
  };
}

/** Where `-o <file>` writes, checked: a file made whole at `path`, or a device or FIFO. */
function outputTarget(
  file: string,
  options: { force: boolean },
): { kind: "created" | "replaced"; path: string } | { kind: "written-into" } {
  if (lstatOrNull(file) === null) return { kind: "created", path: file };
  const target = statOrNull(file);
  if (target === null) {
    throw refused(file, "is a symbolic link to nothing", "remove the link, or choose another file");
  }
  if (target.isCharacterDevice() || target.isFIFO()) return { kind: "written-into" };
  if (!target.isFile()) throw refused(file, kindOf(target), "choose a file path with -o");
  if (!options.force) {
    throw refused(file, "exists", "choose another file with -o, or pass --force to replace it");
  }
  return { kind: "replaced", path: realpathSync(file) };
}

/** What a path that is not a regular file is, as a message says it. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "is a directory, not a regular file";
  if (stats.isSocket()) return "is a socket, not a regular file";
  if (stats.isBlockDevice()) return "is a block device (a disk), not a regular file";
  return "is not a regular file";
}

function refused(file: string, why: string, hint: string): UwfError {
  return new UwfError("USAGE", `${file} ${why}; nothing was written`, { hint });
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}
