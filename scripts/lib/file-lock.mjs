// A lock file naming its holder's pid, for scripts that two `npm test` runs may start at once
// (bundling one tree, installing the agent CLIs). A lock whose pid is gone is taken over.
import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";

/** Run `fn` holding `path`, and return what it returns. */
export function withLock(path, fn) {
  for (;;) {
    try {
      const fd = openSync(path, "wx");
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      const holder = Number(readOrEmpty(path));
      // An empty file is a lock being written: wait for it like for a live holder.
      if (holder > 0 && !isRunning(holder)) rmSync(path, { force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(path, { force: true });
  }
}

function readOrEmpty(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}
