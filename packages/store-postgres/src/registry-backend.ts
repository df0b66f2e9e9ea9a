import { NAME_PATTERN } from "@united-workforce/protocol";
import type { RegistryBackend, RegistryEntry, RegistryProblem } from "@united-workforce/store";
import {
  assertName,
  parseEntry,
  registryCorrupt,
  sameEntry,
} from "@united-workforce/store/backend";
import { UwfError } from "@united-workforce/util";
import type { Database, Sql } from "./connection.js";

/**
 * Registry entries in `uwf_registry`, as the JSON text the filesystem stores. A swap reads the
 * row `for update` in a transaction, so it compares and replaces with no one in between; an
 * insert of a new name relies on the primary key instead (there is no row to lock yet).
 */
export function createPostgresRegistry(db: Database): RegistryBackend {
  // Long by design: one closure per RegistryBackend method, all over one shared connection.
  const locate = (name: string) => `${db.location} uwf_registry name=${name}`;

  const parseRow = (name: string, text: string): RegistryEntry => {
    const parsed = parseEntry(text, name);
    if ("problem" in parsed) throw registryCorrupt(locate(name), parsed.problem);
    return parsed.entry;
  };

  const read = async (sql: Sql, name: string, lock: boolean): Promise<RegistryEntry | null> => {
    const [row] = await sql.query<{ entry: string }>(
      `select entry from uwf_registry where name = $1${lock ? " for update" : ""}`,
      [name],
    );
    return row === undefined ? null : parseRow(name, row.entry);
  };

  return {
    async get(name) {
      assertName(name);
      return read(db, name, false);
    },

    async swap(name, expected, next) {
      assertName(name);
      if (next !== null && next.name !== name) {
        throw new UwfError(
          "INTERNAL",
          `registry swap of ${name} was given an entry for ${next.name}`,
        );
      }
      if (expected === null) {
        if (next === null) return (await read(db, name, false)) === null;
        const inserted = await db.execute(
          "insert into uwf_registry (name, entry) values ($1, $2) on conflict (name) do nothing",
          [name, encodeEntry(next)],
        );
        return inserted > 0;
      }
      return db.transaction(async (sql) => {
        const current = await read(sql, name, true);
        if (!sameEntry(current, expected)) return false;
        if (next === null) {
          await sql.execute("delete from uwf_registry where name = $1", [name]);
        } else {
          await sql.execute("update uwf_registry set entry = $2 where name = $1", [
            name,
            encodeEntry(next),
          ]);
        }
        return true;
      });
    },

    async remove(name) {
      assertName(name);
      return (await db.execute("delete from uwf_registry where name = $1", [name])) > 0;
    },

    async scan() {
      const entries: RegistryEntry[] = [];
      const problems: RegistryProblem[] = [];
      const rows = await db.query<{ name: string; entry: string }>(
        'select name, entry from uwf_registry order by name collate "C"',
      );
      for (const row of rows) {
        if (!NAME_PATTERN.test(row.name)) {
          problems.push({
            name: row.name,
            location: locate(row.name),
            problem: "not a valid workflow name",
          });
          continue;
        }
        const parsed = parseEntry(row.entry, row.name);
        if ("problem" in parsed) {
          problems.push({ name: row.name, location: locate(row.name), problem: parsed.problem });
        } else {
          entries.push(parsed.entry);
        }
      }
      return { entries, problems };
    },

    locate,
  };
}

/** The same text the filesystem writes, so entries copy verbatim between backends. */
export function encodeEntry(entry: RegistryEntry): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}
