import { lstatSync, realpathSync, type Stats, statSync, writeFileSync } from "node:fs";
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
  if (lstatOrNull(file) === null) {
    return (data) => {
      writeFileAtomic(file, data, { mode: 0o600 });
      return "created";
    };
  }
  const target = statOrNull(file);
  if (target === null) {
    throw refused(file, "is a symbolic link to nothing", "remove the link, or choose another file");
  }
  if (target.isCharacterDevice() || target.isFIFO()) {
    return (data) => {
      try {
        writeFileSync(file, data);
      } catch (error) {
        throw ioError(error, file);
      }
      return "written-into";
    };
  }
  if (!target.isFile()) throw refused(file, kindOf(target), "choose a file path with -o");
  if (!options.force) {
    throw refused(file, "exists", "choose another file with -o, or pass --force to replace it");
  }
  const real = realpathSync(file);
  return (data) => {
    writeFileAtomic(real, data, { mode: 0o600 });
    return "replaced";
  };
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
