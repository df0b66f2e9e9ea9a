import { mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { NAME_PATTERN } from "@united-workforce/protocol";
import { isUwfError, UwfError, writeFileAtomic } from "@united-workforce/util";
import { assertHash } from "../cas/hash-check.js";
import { acquireLock, type LockHandle } from "../locks/lock.js";
import { sleepSync } from "../locks/sleep.js";
import { parseEntry, type RegistryEntry } from "./entry-check.js";

export type { RegistryEntry };

/** A registry file that could not be read; `scan` reports these instead of failing. */
export interface RegistryProblem {
  name: string;
  file: string;
  problem: string;
}

/** Changes wait at most this long for another process changing the same name. */
const LOCK_WAIT_MS = 10_000;

/** The name → workflow hash registry: `<home>/workflows/<name>.json`, history newest first. */
export class Registry {
  readonly dir: string;
  readonly #locks: string;
  readonly #now: () => Date;

  constructor(home: string, options: { now?: () => Date } = {}) {
    this.dir = join(home, "workflows");
    this.#locks = join(home, "locks", "workflows");
    this.#now = options.now ?? (() => new Date());
  }

  get(name: string): RegistryEntry | null {
    const file = this.#file(name);
    const text = readOptional(file);
    if (text === null) return null;
    const parsed = parseEntry(text, name);
    if ("problem" in parsed) throw corruptError(file, parsed.problem);
    return parsed.entry;
  }

  /** Make `hash` the current version of `name`; the same hash as current changes nothing. */
  add(name: string, hash: string): { entry: RegistryEntry; changed: boolean } {
    assertHash(hash, "workflow hash");
    return this.#locked(name, "workflow add", () => {
      const entry = this.get(name);
      if (entry?.current === hash) return { entry, changed: false };
      return { entry: this.#push(name, hash, entry?.history ?? []), changed: true };
    });
  }

  /**
   * Make an earlier version current again: `to`, or by default the newest version that differs
   * from the current one. The history keeps everything; the rollback is a new newest item.
   */
  rollback(name: string, to?: string): RegistryEntry {
    if (to !== undefined) assertHash(to, "workflow hash");
    return this.#locked(name, "workflow rollback", () => {
      const entry = this.get(name);
      if (entry === null) {
        throw new UwfError("WORKFLOW_NOT_FOUND", `no workflow named "${name}" is registered`, {
          hint: "`uwf workflow list` shows the registered workflows",
        });
      }
      const target = to ?? entry.history.find((item) => item.hash !== entry.current)?.hash;
      if (target === undefined) {
        throw new UwfError("USAGE", `workflow ${name} has no earlier version to roll back to`, {
          hint: `register a new version with \`uwf workflow add <file>\`; \`uwf workflow history ${name}\` lists its versions`,
        });
      }
      if (!entry.history.some((item) => item.hash === target)) {
        throw new UwfError("USAGE", `${target} is not a version of workflow ${name}`, {
          hint: `\`uwf workflow history ${name}\` lists its versions`,
        });
      }
      if (target === entry.current) return entry;
      return this.#push(name, target, entry.history);
    });
  }

  remove(name: string): boolean {
    const file = this.#file(name);
    return this.#locked(name, "workflow remove", () => {
      try {
        unlinkSync(file);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw error;
      }
    });
  }

  /** The readable entries, sorted by name; unreadable ones are left out (see `scan`). */
  list(): RegistryEntry[] {
    return this.scan().entries;
  }

  /** Every entry, plus a problem for each file that could not be read instead of a crash. */
  scan(): { entries: RegistryEntry[]; problems: RegistryProblem[] } {
    const entries: RegistryEntry[] = [];
    const problems: RegistryProblem[] = [];
    for (const fileName of listNames(this.dir).sort()) {
      if (!fileName.endsWith(".json")) continue;
      const name = fileName.slice(0, -".json".length);
      if (!NAME_PATTERN.test(name)) continue;
      const file = join(this.dir, fileName);
      const text = readOptional(file);
      if (text === null) continue;
      const parsed = parseEntry(text, name);
      if ("problem" in parsed) problems.push({ name, file, problem: parsed.problem });
      else entries.push(parsed.entry);
    }
    return { entries, problems };
  }

  #push(name: string, hash: string, history: RegistryEntry["history"]): RegistryEntry {
    const entry: RegistryEntry = {
      name,
      current: hash,
      history: [{ hash, at: this.#now().toISOString() }, ...history],
    };
    mkdirSync(this.dir, { recursive: true });
    writeFileAtomic(this.#file(name), `${JSON.stringify(entry, null, 2)}\n`);
    return entry;
  }

  #file(name: string): string {
    if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
      throw new UwfError("USAGE", `${JSON.stringify(name)} is not a valid workflow name`, {
        hint: "a workflow name starts with a letter or digit and uses only letters, digits, '.', '_' and '-'",
      });
    }
    return join(this.dir, `${name}.json`);
  }

  /**
   * Run a read-modify-write of one entry under its own short lock, so concurrent processes
   * changing the same name take turns and no history item is lost.
   */
  #locked<T>(name: string, command: string, change: () => T): T {
    this.#file(name);
    const path = join(this.#locks, `${name}.lock`);
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      let lock: LockHandle;
      try {
        lock = acquireLock(path, `${command} ${name}`);
      } catch (error) {
        if (!isUwfError(error) || error.code !== "THREAD_BUSY") throw error;
        if (Date.now() > deadline) {
          throw new UwfError(
            "THREAD_BUSY",
            `workflow ${name} is being changed by another process`,
            {
              hint: "try again in a moment",
              cause: error,
              details: error.details,
            },
          );
        }
        sleepSync(2 + Math.random() * 10);
        continue;
      }
      try {
        return change();
      } finally {
        lock.release();
      }
    }
  }
}

function corruptError(file: string, problem: string): UwfError {
  // No registry-specific code exists; IO is the storage-level failure code.
  return new UwfError("IO", `${file}: ${problem}`, {
    hint: "fix the file by hand, or remove it and add the workflow again with `uwf workflow add`",
    details: { file },
  });
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
