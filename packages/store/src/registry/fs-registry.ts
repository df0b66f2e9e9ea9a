import { mkdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { NAME_PATTERN } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import type { RegistryBackend, RegistryEntry, RegistryProblem } from "../api.js";
import { DIR_MODE, isMissing, listNames, unlinkQuietly, writeNewFile } from "../fs/files.js";
import { withFileMutex } from "../fs/mutex.js";
import { parseEntry } from "./entry-check.js";
import { registryCorrupt, sameEntry } from "./registry.js";

let tempCounter = 0;

/** Registry entries as files: `<home>/workflows/<name>.json`, history newest first. */
export class FsRegistryBackend implements RegistryBackend {
  readonly #dir: string;
  readonly #mutexDir: string;

  constructor(home: string) {
    this.#dir = join(home, "workflows");
    this.#mutexDir = join(home, "locks", "workflows");
  }

  locate(name: string): string {
    return join(this.#dir, `${name}.json`);
  }

  async get(name: string): Promise<RegistryEntry | null> {
    return this.#read(name);
  }

  swap(name: string, expected: RegistryEntry | null, next: RegistryEntry | null): Promise<boolean> {
    const mutex = join(this.#mutexDir, `${name}.lock`);
    return withFileMutex(
      mutex,
      () => {
        if (!sameEntry(this.#read(name), expected)) return false;
        const file = this.locate(name);
        if (next === null) {
          unlinkQuietly(file);
          return true;
        }
        mkdirSync(this.#dir, { recursive: true, mode: DIR_MODE });
        const temp = join(this.#dir, `.tmp-${process.pid}-${tempCounter++}`);
        writeNewFile(temp, Buffer.from(`${JSON.stringify(next, null, 2)}\n`, "utf8"), file);
        try {
          renameSync(temp, file);
        } finally {
          unlinkQuietly(temp);
        }
        return true;
      },
      () => busyError(name, mutex),
    );
  }

  remove(name: string): Promise<boolean> {
    const mutex = join(this.#mutexDir, `${name}.lock`);
    return withFileMutex(
      mutex,
      () => {
        try {
          unlinkSync(this.locate(name));
          return true;
        } catch (error) {
          if (isMissing(error)) return false;
          throw error;
        }
      },
      () => busyError(name, mutex),
    );
  }

  async scan(): Promise<{ entries: RegistryEntry[]; problems: RegistryProblem[] }> {
    const entries: RegistryEntry[] = [];
    const problems: RegistryProblem[] = [];
    for (const fileName of listNames(this.#dir).sort()) {
      if (!fileName.endsWith(".json")) continue;
      const name = fileName.slice(0, -".json".length);
      if (!NAME_PATTERN.test(name)) continue;
      const text = readOptional(this.locate(name));
      if (text === null) continue;
      const parsed = parseEntry(text, name);
      if ("problem" in parsed) {
        problems.push({ name, location: this.locate(name), problem: parsed.problem });
      } else entries.push(parsed.entry);
    }
    return { entries, problems };
  }

  #read(name: string): RegistryEntry | null {
    const file = this.locate(name);
    const text = readOptional(file);
    if (text === null) return null;
    const parsed = parseEntry(text, name);
    if ("problem" in parsed) throw registryCorrupt(file, parsed.problem);
    return parsed.entry;
  }
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function busyError(name: string, mutex: string): UwfError {
  return new UwfError(
    "REGISTRY_BUSY",
    `workflow ${name} stayed locked by another process (${mutex})`,
    {
      hint: "try again in a moment",
    },
  );
}
