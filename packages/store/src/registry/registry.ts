import { NAME_PATTERN } from "@united-workforce/protocol";
import { isoTime, UwfError } from "@united-workforce/util";
import type { RegistryBackend, RegistryEntry, RegistryProblem, RegistryStore } from "../api.js";
import { assertHash } from "../cas/hash-check.js";
import { delay } from "../fs/files.js";

export type { RegistryEntry, RegistryProblem };

/** A change retries this often when other processes keep changing the same name. */
const MAX_ATTEMPTS = 200;

/**
 * The name → workflow hash registry with history, over any backend's compare-and-swap: read the
 * entry, compute the change, swap it in only if nobody changed it meanwhile, else read again.
 * Concurrent `workflow add`s of one name therefore all land in the history, none lost.
 */
export class Registry implements RegistryStore {
  readonly #backend: RegistryBackend;
  readonly #now: () => Date;

  constructor(backend: RegistryBackend, options: { now?: () => Date } = {}) {
    this.#backend = backend;
    this.#now = options.now ?? (() => new Date());
  }

  get(name: string): Promise<RegistryEntry | null> {
    assertName(name);
    return this.#backend.get(name);
  }

  add(name: string, hash: string): Promise<{ entry: RegistryEntry; changed: boolean }> {
    assertHash(hash, "workflow hash");
    return this.#change<{ entry: RegistryEntry; changed: boolean }>(name, (entry) => {
      if (entry?.current === hash) return { next: undefined, result: { entry, changed: false } };
      const next = this.#push(name, hash, entry?.history ?? []);
      return { next, result: { entry: next, changed: true } };
    });
  }

  rollback(name: string, to?: string): Promise<RegistryEntry> {
    if (to !== undefined) assertHash(to, "workflow hash");
    return this.#change(name, (entry) => {
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
      if (target === entry.current) return { next: undefined, result: entry };
      const next = this.#push(name, target, entry.history);
      return { next, result: next };
    });
  }

  /** Remove a name, even one whose entry cannot be read (that is how such an entry is fixed). */
  remove(name: string): Promise<boolean> {
    assertName(name);
    return this.#backend.remove(name);
  }

  async restore(entry: RegistryEntry): Promise<boolean> {
    assertName(entry.name);
    if (await this.#backend.swap(entry.name, null, entry)) return true;
    const existing = await this.#backend.get(entry.name);
    if (existing !== null && JSON.stringify(existing) === JSON.stringify(entry)) return false;
    throw new UwfError(
      "STORE_CONFLICT",
      `the target already registers a different workflow ${entry.name} (current ${existing?.current ?? "none"})`,
      {
        hint: `nothing under that name was changed; remove it there with \`uwf workflow rm ${entry.name}\` if the copy should win`,
        details: { name: entry.name },
      },
    );
  }

  async list(): Promise<RegistryEntry[]> {
    return (await this.scan()).entries;
  }

  scan(): Promise<{ entries: RegistryEntry[]; problems: RegistryProblem[] }> {
    return this.#backend.scan();
  }

  #push(name: string, hash: string, history: RegistryEntry["history"]): RegistryEntry {
    return {
      name,
      current: hash,
      history: [{ hash, at: isoTime(this.#now().getTime()) }, ...history],
    };
  }

  /**
   * Read-modify-swap one entry until the swap lands. `decide` returns the next entry (null to
   * remove it, undefined for no change) and the caller's result.
   */
  async #change<T>(
    name: string,
    decide: (entry: RegistryEntry | null) => { next: RegistryEntry | null | undefined; result: T },
  ): Promise<T> {
    assertName(name);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await this.#backend.get(name);
      const { next, result } = decide(entry);
      if (next === undefined) return result;
      if (await this.#backend.swap(name, entry, next)) return result;
      await delay(Math.random() * Math.min(2 + attempt, 20));
    }
    throw new UwfError("REGISTRY_BUSY", `workflow ${name} is being changed by other processes`, {
      hint: "try again in a moment",
      details: { name },
    });
  }
}

export function assertName(name: string): void {
  if (typeof name === "string" && NAME_PATTERN.test(name)) return;
  throw new UwfError("USAGE", `${JSON.stringify(name)} is not a valid workflow name`, {
    hint: "a workflow name starts with a letter or digit and uses only letters, digits, '.', '_' and '-'",
  });
}

/** Whether a stored entry is still the one a change was computed from. */
export function sameEntry(a: RegistryEntry | null, b: RegistryEntry | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.current === b.current &&
    a.history.length === b.history.length &&
    a.history[0]?.at === b.history[0]?.at
  );
}

export function registryCorrupt(where: string, problem: string): UwfError {
  return new UwfError("REGISTRY_CORRUPT", `${where}: ${problem}`, {
    hint: "fix the file by hand, or remove it and add the workflow again with `uwf workflow add`",
    details: { file: where },
  });
}
