import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join, sep } from "node:path";
import { isThreadId, type ThreadPointer } from "@united-workforce/protocol";
import { UwfError, ulidTime } from "@united-workforce/util";
import type { ThreadListItem, ThreadPage, ThreadQuery } from "../api.js";
import {
  DIR_MODE,
  FILE_MODE,
  isMissing,
  listNames,
  unlinkQuietly,
  writeNewFile,
} from "../fs/files.js";
import { withFileMutex } from "../fs/mutex.js";
import { matchesQuery, pastCursor } from "./paging.js";
import { parsePointer } from "./pointer-check.js";
import { readSmallFile } from "./read-small-file.js";

/**
 * A small index of the thread pointers, so a list reads what it shows, not every pointer:
 * `<home>/index/threads/`.
 *
 * * `manifest-<n>.json` (the highest n) names the segment files (each the entries of a run of ids, oldest first,
 *   about SEGMENT_SIZE of them) with what each holds (statuses, workflows, title characters,
 *   creation times), so a filtered list skips the segments that cannot match. A write makes a
 *   new segment file and the next manifest: readers see the old state or the new one.
 * * `families-…/<bucket>.log`: "start id" lines, a fork family's threads without a scan.
 * * `journal-<n>.log`: the writes since manifest n, one JSON line each; folded into the
 *   segments (and the next manifest) once it passes JOURNAL_BYTES.
 * * `dirty/<id>.<writer>`: a writer's marker, made before its pointer write and removed once the
 *   index holds it. A marker left by a crash makes every reader read that pointer itself.
 *
 * The index only proposes: the pointers of the threads a list shows are read again, and they
 * win. It is rebuilt from the pointers when missing, unreadable, or stale (the pointer folder
 * changed with no writer's marker to say why), by `uwf store reindex` and by `thread verify
 * --all`.
 */

const VERSION = 1;
/** Entries per segment: a write rewrites one segment, a first page reads one or two. */
const SEGMENT_SIZE = 512;
/** A marker older than this has no writer left (a write takes milliseconds). */
const ORPHAN_MARKER_MS = 60_000;
/**
 * A folder time this close to the moment the manifest was written may hide a later change in
 * the same clock tick; such a manifest is checked against a listing once more.
 */
const RACY_MS = 100;

/** One thread in the index: id, rev, visible stored status or `corrupt`, and the filters. */
type Entry = [
  id: string,
  rev: number,
  status: string,
  workflow: string | null,
  start: string | null,
  createdMs: number,
  title: string | null,
];

interface Segment {
  file: string;
  first: string;
  last: string;
  count: number;
  statuses: Record<string, number>;
  workflows: string[];
  /** Every character of the lower-cased titles. */
  chars: string;
  minCreated: number;
  maxCreated: number;
}

interface Manifest {
  version: number;
  /** The folder of `by-start` buckets: "start id" lines, a fork family without a scan. */
  families: string;
  /** The pointer folder's mtime the index accounts for, and when that was recorded. */
  folderMs: number;
  recordedMs: number;
  segments: Segment[];
}

let writerCounter = 0;

const MANIFEST_NAME = /^manifest-\d{12}\.json$/;
/** A journal longer than this is folded into the segments (about 200 writes). */
const JOURNAL_BYTES = 48 * 1024;

/** Append `line` to `file`; its size after. */
function appendLine(file: string, line: string): number {
  const fd = openSync(file, "a", FILE_MODE);
  try {
    writeSync(fd, line);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

function manifestNumber(name: string): number {
  return Number(name.slice("manifest-".length, -".json".length));
}

export class FsThreadIndex {
  readonly #threadsDir: string;
  readonly #dir: string;
  readonly #dirtyDir: string;
  readonly #mutex: string;
  #ready = false;

  constructor(home: string, threadsDir: string) {
    this.#threadsDir = threadsDir;
    this.#dir = join(home, "index", "threads");
    this.#dirtyDir = join(this.#dir, "dirty");
    this.#mutex = join(home, "locks", "thread-index.lock");
  }

  /** Before a pointer write: a marker that says the index may lag behind this thread. */
  markDirty(id: string): string {
    this.#ensureDirs();
    const marker = join(this.#dirtyDir, `${id}.${process.pid}-${writerCounter++}`);
    try {
      writeFileSync(marker, "");
    } catch (error) {
      // The index was deleted since this store made its folders: make them again.
      if (!isMissing(error)) throw error;
      this.#ensureDirs(true);
      writeFileSync(marker, "");
    }
    return marker;
  }

  /**
   * After a pointer write: put the pointer in the index and drop the marker. A failure leaves
   * the marker, so readers read the pointer until someone heals it.
   */
  async written(pointer: ThreadPointer, marker: string, created: boolean): Promise<void> {
    try {
      await this.#locked(() => {
        const manifest = this.#readManifest();
        if (manifest === null) {
          this.#rebuild();
          return;
        }
        if (created) this.#appendStarts(manifest.families, [pointer]);
        const line: JournalLine = {
          entry: entryOf(pointer),
          created,
          folderMs: folderTime(this.#threadsDir),
          recordedMs: Date.now(),
        };
        const size = appendLine(this.#journalOf(manifest.number), `${JSON.stringify(line)}\n`);
        // Folded into the segments now and then, so readers read a short journal.
        if (size > JOURNAL_BYTES) this.#apply(manifest, []);
      });
      unlinkQuietly(marker);
    } catch {
      // The marker stays: the index is healed from the pointer later.
    }
  }

  /** Rebuild from the pointers, whatever the index holds. */
  async rebuild(): Promise<{ threads: number }> {
    return this.#locked(() => this.#rebuild());
  }

  /** One page of threads, newest (or oldest) first, each read again from its pointer. */
  async list(query: ThreadQuery, live: Set<string>): Promise<ThreadPage> {
    for (let attempt = 0; ; attempt++) {
      const view = await this.#view();
      const oldestFirst = query.oldestFirst === true;
      const candidates =
        query.start !== undefined
          ? this.#family(view, query.start, oldestFirst)
          : merge(
              this.#indexed(view, query, live),
              oldestFirst ? [...view.overlay].reverse() : view.overlay,
              oldestFirst,
            );
      try {
        return await this.#page(candidates, query, live);
      } catch (error) {
        // A writer replaced a segment under this reader: read the new manifest. A damaged
        // segment is healed by a rebuild.
        if (attempt === 4) throw error;
        if (error instanceof IndexDamaged) await this.rebuild();
        else if (!(error instanceof IndexMoved)) throw error;
      }
    }
  }

  async #page(
    candidates: Iterable<Entry>,
    query: ThreadQuery,
    live: Set<string>,
  ): Promise<ThreadPage> {
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    let skip = query.offset ?? 0;
    const items: ThreadListItem[] = [];
    let more = false;
    let total = 0;
    const stale: ThreadListItem[] = [];
    for (const entry of candidates) {
      if (!entryMatches(entry, query, live)) continue;
      if (skip > 0 || (items.length === limit && more)) {
        // Passed over or counted by the index alone: only the threads shown are read.
        if (skip > 0) skip--;
        total++;
        continue;
      }
      // Shown (or the one after the page, which decides `more`): the pointer decides.
      const item = this.#read(entry[0], live);
      if (item === null || !sameEntry(item, entry)) stale.push(item ?? gone(entry[0]));
      if (item === null || !matchesQuery(item, query)) continue;
      total++;
      if (items.length < limit) items.push(item);
      else {
        more = true;
        if (!query.count) break;
      }
    }
    if (stale.length > 0) await this.#heal(stale);
    return query.count ? { items, more, total } : { items, more };
  }

  /**
   * The entries the segments hold, newest first (or oldest), skipping segments no thread of
   * could match.
   */
  *#indexed(view: View, query: ThreadQuery, live: Set<string>): Generator<Entry> {
    const liveIds = [...live];
    const segments = [...view.manifest.segments];
    if (!query.oldestFirst) segments.reverse();
    for (const segment of segments) {
      if (!mayMatch(segment, query, liveIds)) continue;
      const entries = this.#readSegment(segment.file);
      if (!query.oldestFirst) entries.reverse();
      for (const entry of entries) if (!view.overlaid.has(entry[0])) yield entry;
    }
  }

  /** A fork family: the ids its bucket lists under `start`, and the overlay's. */
  *#family(view: View, start: string, oldestFirst: boolean): Generator<Entry> {
    const ids = new Set<string>();
    let text = "";
    const families = join(this.#dir, view.manifest.families);
    try {
      text = readFileSync(join(families, `${bucketOf(start)}.log`), "utf8");
    } catch (error) {
      if (!isMissing(error)) throw error;
      // No bucket is an empty one; no folder is damage (or a rebuild since the manifest).
      if (!existsSync(families)) throw new IndexDamaged(families);
    }
    for (const line of text.split("\n")) {
      const space = line.indexOf(" ");
      if (space > 0 && line.slice(0, space) === start) ids.add(line.slice(space + 1));
    }
    for (const entry of view.overlay) if (entry[4] === start) ids.add(entry[0]);
    const sorted = [...ids].sort();
    if (!oldestFirst) sorted.reverse();
    for (const id of sorted) {
      const item = this.#read(id, new Set());
      if (item !== null) yield itemEntry(item);
    }
  }

  /** The manifest (rebuilt when missing or stale) and the fresh entries of marked threads. */
  async #view(): Promise<View> {
    for (let attempt = 0; ; attempt++) {
      const manifest = this.#readManifest();
      const markers = listNames(this.#dirtyDir);
      const journal = manifest === null ? null : this.#readJournal(manifest);
      if (journal === "moved" && attempt < 4) continue;
      if (
        manifest !== null &&
        journal !== null &&
        journal !== "moved" &&
        (attempt >= 2 || !(await this.#stale(manifest, journal, markers.length > 0)))
      )
        return { manifest, ...(await this.#overlay(markers, journal.entries)) };
      if (attempt >= 2) throw indexError(this.#dir, "could not be written");
      await this.rebuild();
    }
  }

  /**
   * The journal of `manifest`: the writes since the manifest, the newest revision of each
   * thread, and what the last write saw of the pointer folder. "moved" when a writer folded it
   * into a newer manifest meanwhile.
   */
  #readJournal(manifest: LoadedManifest): Journal | "moved" {
    let text = "";
    try {
      text = readFileSync(this.#journalOf(manifest.number), "utf8");
    } catch (error) {
      if (!isMissing(error)) throw error;
      // No journal yet, unless a writer folded it and removed the manifest it belonged to.
      if (!existsSync(join(this.#dir, manifest.name))) return "moved";
    }
    const entries = new Map<string, Entry>();
    let created = 0;
    let folderMs = manifest.folderMs;
    let recordedMs = manifest.recordedMs;
    for (const line of text.split("\n")) {
      let parsed: JournalLine;
      try {
        parsed = JSON.parse(line);
      } catch {
        continue; // The empty tail, or a line a killed writer left half-written.
      }
      const entry = parsed.entry;
      if (entry !== null) {
        const known = entries.get(entry[0]);
        if (known === undefined || known[1] <= entry[1]) entries.set(entry[0], entry);
        if (parsed.created) created++;
      }
      folderMs = parsed.folderMs;
      recordedMs = parsed.recordedMs;
    }
    return { entries: [...entries.values()], created, folderMs, recordedMs };
  }

  /**
   * Whether pointers changed with nobody to say why (made or removed by hand, or a crash): the
   * folder's time moved and no marker is left; or it is too close to the recorded time to tell
   * and the folder does not hold what the index holds.
   */
  async #stale(manifest: LoadedManifest, journal: Journal, marked: boolean): Promise<boolean> {
    const folderMs = folderTime(this.#threadsDir);
    if (folderMs !== journal.folderMs) return !marked;
    if (journal.recordedMs - journal.folderMs >= RACY_MS) return false;
    const listedMs = Date.now();
    const segments = manifest.segments.reduce((sum, segment) => sum + segment.count, 0);
    const pointers = listNames(this.#threadsDir).filter(isPointerName).length;
    if (pointers !== segments + journal.created) return true;
    // Listed late enough to tell: say so in the journal, so the next readers need not list
    // (else every list after a write would read the whole folder).
    if (listedMs - folderMs >= RACY_MS) await this.#noteListed(manifest, folderMs, listedMs);
    return false;
  }

  /** A journal line that only says the folder, at `folderMs`, held what the index holds. */
  async #noteListed(manifest: LoadedManifest, folderMs: number, listedMs: number): Promise<void> {
    const line: JournalLine = { entry: null, created: false, folderMs, recordedMs: listedMs };
    try {
      await this.#locked(() => {
        // Written only to the journal it was read from, and only if no write came since.
        if (this.#readManifest()?.number !== manifest.number) return;
        if (folderTime(this.#threadsDir) !== folderMs) return;
        appendLine(this.#journalOf(manifest.number), `${JSON.stringify(line)}\n`);
      });
    } catch {
      // Only a saving: the next reader lists the folder again.
    }
  }

  /**
   * What the segments do not say yet: the journal's entries, and the marked threads as their
   * pointers say now (markers left by dead writers are healed).
   */
  async #overlay(
    markers: string[],
    journaled: Entry[],
  ): Promise<{ overlay: Entry[]; overlaid: Set<string> }> {
    const marked = new Set<string>();
    const orphans: string[] = [];
    for (const marker of markers) {
      const id = marker.slice(0, marker.indexOf("."));
      if (!isThreadId(id)) continue;
      marked.add(id);
      if (isOrphan(join(this.#dirtyDir, marker))) orphans.push(marker);
    }
    const byId = new Map(journaled.map((entry) => [entry[0], entry]));
    const overlaid = new Set([...byId.keys(), ...marked]);
    const fromPointers: Entry[] = [];
    for (const id of marked) {
      const item = this.#read(id, new Set());
      byId.delete(id);
      if (item !== null) fromPointers.push(itemEntry(item));
    }
    const overlay = [...byId.values(), ...fromPointers];
    overlay.sort((a, b) => (a[0] < b[0] ? 1 : -1));
    if (orphans.length > 0) {
      await this.#locked(() => {
        const manifest = this.#readManifest();
        if (manifest === null) return;
        const ids = new Set(orphans.map((marker) => marker.slice(0, marker.indexOf("."))));
        const fresh = fromPointers.filter((entry) => ids.has(entry[0]));
        const removed = [...ids].filter((id) => !fresh.some((entry) => entry[0] === id));
        this.#apply(manifest, fresh, removed);
        for (const marker of orphans) unlinkQuietly(join(this.#dirtyDir, marker));
      }).catch(() => {});
    }
    return { overlay, overlaid };
  }

  /** Put what the pointers of shown threads said back into the index (best effort). */
  async #heal(items: ThreadListItem[]): Promise<void> {
    await this.#locked(() => {
      const manifest = this.#readManifest();
      if (manifest === null) return;
      const fresh = items.filter((item) => item.problem !== GONE).map(itemEntry);
      const removed = items.filter((item) => item.problem === GONE).map((item) => item.id);
      this.#apply(manifest, fresh, removed);
    }).catch(() => {});
  }

  /**
   * Under the mutex: fold the journal into the segments, then what pointers said now (`fresh`,
   * which wins whatever its revision) and `removed`; write the segments and the next manifest.
   */
  #apply(manifest: LoadedManifest, fresh: Entry[], removed: string[] = []): void {
    const journal = this.#readJournal(manifest);
    const journaled = journal === "moved" ? [] : journal.entries;
    const segments = [...manifest.segments];
    const changed = new Map<number, Entry[]>();
    const entriesAt = (at: number): Entry[] => {
      let entries = changed.get(at);
      if (entries === undefined) {
        entries = at < segments.length ? this.#readSegment(segments[at]!.file) : [];
        changed.set(at, entries);
      }
      return entries;
    };
    for (const id of removed) {
      const at = segmentFor(segments, id);
      if (at < 0) continue;
      const entries = entriesAt(at);
      const i = entries.findIndex((entry) => entry[0] === id);
      if (i >= 0) entries.splice(i, 1);
    }
    const upserts: [Entry, boolean][] = [
      ...journaled.map((entry): [Entry, boolean] => [entry, false]),
      ...fresh.map((entry): [Entry, boolean] => [entry, true]),
    ];
    for (const [entry, forced] of upserts) {
      let at = Math.max(segmentFor(segments, entry[0]), 0);
      // A new newest thread past a full last segment starts the next one.
      if (
        at === segments.length - 1 &&
        segments[at]!.count >= SEGMENT_SIZE &&
        entry[0] > segments[at]!.last
      )
        at = segments.length;
      const entries = entriesAt(at);
      const i = lowerBound(entries, entry[0]);
      // Two swaps of one thread may reach the index out of order: the higher revision stays.
      if (entries[i]?.[0] !== entry[0]) entries.splice(i, 0, entry);
      else if (forced || entries[i]![1] <= entry[1]) entries[i] = entry;
    }
    const old: string[] = [];
    const next: Segment[] = [];
    for (let at = 0; at < Math.max(segments.length, ...changed.keys()) + 1; at++) {
      const entries = changed.get(at);
      const segment = segments[at];
      if (entries === undefined) {
        if (segment !== undefined) next.push(segment);
        continue;
      }
      if (segment !== undefined) old.push(segment.file);
      for (let from = 0; from < entries.length; from += 2 * SEGMENT_SIZE)
        next.push(this.#writeSegment(entries.slice(from, from + 2 * SEGMENT_SIZE)));
    }
    this.#writeManifest(next, manifest.families);
    for (const file of old) unlinkQuietly(join(this.#dir, file));
  }

  #rebuild(): { threads: number } {
    this.#ensureDirs(true);
    const folderMs = folderTime(this.#threadsDir);
    const old = listNames(this.#dir).filter((name) => name.startsWith("seg-"));
    // A new folder of families, so readers of the old manifest keep reading the old one.
    const families = `families-${process.pid}-${Date.now().toString(36)}-${writerCounter++}`;
    mkdirSync(join(this.#dir, families), { mode: DIR_MODE });
    // Written as the pointers are read, a segment and a batch of family lines at a time: a
    // rebuild keeps no entry per thread (`verify --all` runs one on a store of any size).
    const segments: Segment[] = [];
    let entries: Entry[] = [];
    const starts = new Map<string, string[]>();
    let startLines = 0;
    const flushStarts = () => {
      for (const [bucket, lines] of starts)
        appendFileSync(join(this.#dir, families, `${bucket}.log`), lines.join(""));
      starts.clear();
      startLines = 0;
    };
    let threads = 0;
    for (const name of listNames(this.#threadsDir).filter(isPointerName).sort()) {
      const item = this.#read(name.slice(0, -".json".length), new Set());
      if (item === null) continue;
      threads++;
      entries.push(itemEntry(item));
      if (entries.length === SEGMENT_SIZE) {
        segments.push(this.#writeSegment(entries));
        entries = [];
      }
      if (item.pointer !== null) {
        const bucket = bucketOf(item.pointer.start);
        const lines = starts.get(bucket) ?? [];
        lines.push(`${item.pointer.start} ${item.id}\n`);
        starts.set(bucket, lines);
        if (++startLines === SEGMENT_SIZE * 8) flushStarts();
      }
    }
    if (entries.length > 0) segments.push(this.#writeSegment(entries));
    flushStarts();
    const oldFamilies = listNames(this.#dir).filter(
      (name) => name.startsWith("families-") && name !== families,
    );
    this.#writeManifest(segments, families, folderMs);
    for (const file of old) unlinkQuietly(join(this.#dir, file));
    for (const name of oldFamilies) rmSync(join(this.#dir, name), { recursive: true, force: true });
    for (const marker of listNames(this.#dirtyDir))
      if (isOrphan(join(this.#dirtyDir, marker))) unlinkQuietly(join(this.#dirtyDir, marker));
    return { threads };
  }

  #appendStarts(families: string, created: ThreadPointer[]): void {
    for (const pointer of created)
      writeFileSync(
        join(this.#dir, families, `${bucketOf(pointer.start)}.log`),
        `${pointer.start} ${pointer.thread}\n`,
        { flag: "a" },
      );
  }

  #writeSegment(entries: Entry[]): Segment {
    const file = `seg-${process.pid}-${Date.now().toString(36)}-${writerCounter++}.json`;
    writeNewFile(join(this.#dir, file), Buffer.from(JSON.stringify(entries)));
    const statuses: Record<string, number> = {};
    const workflows = new Set<string>();
    const chars = new Set<string>();
    let minCreated = Number.POSITIVE_INFINITY;
    let maxCreated = Number.NEGATIVE_INFINITY;
    for (const [, , status, workflow, , createdMs, title] of entries) {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (workflow !== null) workflows.add(workflow);
      if (title !== null) for (const char of title.toLowerCase()) chars.add(char);
      minCreated = Math.min(minCreated, createdMs);
      maxCreated = Math.max(maxCreated, createdMs);
    }
    return {
      file,
      first: entries[0]?.[0] ?? "",
      last: entries[entries.length - 1]?.[0] ?? "",
      count: entries.length,
      statuses,
      workflows: [...workflows],
      chars: [...chars].join(""),
      minCreated,
      maxCreated,
    };
  }

  /**
   * A new manifest under the next number, then the older ones removed. Never a rename over an
   * existing file: ext4 flushes the data of a file replaced that way (≈ 5 ms a write).
   */
  #writeManifest(
    segments: Segment[],
    families: string,
    folderMs = folderTime(this.#threadsDir),
  ): void {
    const manifest: Manifest = {
      version: VERSION,
      families,
      folderMs,
      recordedMs: Date.now(),
      segments: segments.filter((segment) => segment.count > 0),
    };
    const older = this.#manifestNames();
    const number = older.length === 0 ? 1 : manifestNumber(older[older.length - 1]!) + 1;
    const file = join(this.#dir, `manifest-${String(number).padStart(12, "0")}.json`);
    const temp = join(this.#dir, `.tmp-${process.pid}-${writerCounter++}`);
    writeNewFile(temp, Buffer.from(JSON.stringify(manifest)), file);
    renameSync(temp, file);
    // The manifest first, then its journal: a reader that finds no journal beside a manifest
    // that is still there knows the journal was empty.
    for (const name of older) unlinkQuietly(join(this.#dir, name));
    for (const name of older) unlinkQuietly(this.#journalOf(manifestNumber(name)));
  }

  #journalOf(number: number): string {
    return join(this.#dir, `journal-${String(number).padStart(12, "0")}.log`);
  }

  /** The newest readable manifest. */
  #readManifest(): LoadedManifest | null {
    const names = this.#manifestNames();
    for (let i = names.length - 1; i >= 0; i--) {
      const name = names[i]!;
      try {
        const manifest = JSON.parse(readFileSync(join(this.#dir, name), "utf8"));
        if (
          manifest?.version === VERSION &&
          Array.isArray(manifest.segments) &&
          typeof manifest.families === "string"
        )
          return { ...manifest, name, number: manifestNumber(name) };
      } catch {
        // Removed by a newer writer meanwhile, or damaged: an older one may do.
      }
    }
    return null;
  }

  #manifestNames(): string[] {
    return listNames(this.#dir)
      .filter((name) => MANIFEST_NAME.test(name))
      .sort();
  }

  #readSegment(file: string): Entry[] {
    let text: string;
    try {
      text = readFileSync(join(this.#dir, file), "utf8");
    } catch (error) {
      // Replaced since the manifest was read: the caller's view is read again.
      if (isMissing(error)) throw new IndexMoved(file);
      throw error;
    }
    try {
      return JSON.parse(text) as Entry[];
    } catch {
      throw new IndexDamaged(file);
    }
  }

  /** The pointer as a list item; null when it is gone. */
  #read(id: string, live: Set<string>): ThreadListItem | null {
    let text: string;
    try {
      text = readSmallFile(`${this.#threadsDir}${sep}${id}.json`);
    } catch (error) {
      if (isMissing(error)) return null;
      const problem = `cannot be read: ${(error as Error).message}`;
      return { id, pointer: null, problem, running: live.has(id) };
    }
    const parsed = parsePointer(text, id);
    return "problem" in parsed
      ? { id, pointer: null, problem: parsed.problem, running: live.has(id) }
      : {
          id,
          pointer: { ...parsed.pointer, rev: parsed.pointer.rev ?? 0 },
          problem: null,
          running: live.has(id),
        };
  }

  async #locked<T>(critical: () => T): Promise<T> {
    this.#ensureDirs();
    return withFileMutex(this.#mutex, critical, () =>
      indexError(this.#mutex, "stayed locked by another process"),
    );
  }

  #ensureDirs(again = false): void {
    if (this.#ready && !again) return;
    mkdirSync(this.#dirtyDir, { recursive: true, mode: DIR_MODE });
    mkdirSync(join(this.#mutex, ".."), { recursive: true, mode: DIR_MODE });
    this.#ready = true;
  }
}

/** A manifest as read, with its file name and number (its journal's number too). */
type LoadedManifest = Manifest & { name: string; number: number };

/** One write since the manifest: `journal-<n>.log`, a JSON line each. */
interface JournalLine {
  /** Null on a line that only records a listing of the pointer folder (`#noteListed`). */
  entry: Entry | null;
  created: boolean;
  /** The pointer folder's mtime after this write, and when that was read. */
  folderMs: number;
  recordedMs: number;
}

interface Journal {
  /** The newest revision of each thread written since the manifest. */
  entries: Entry[];
  /** Threads created since the manifest. */
  created: number;
  folderMs: number;
  recordedMs: number;
}

interface View {
  manifest: LoadedManifest;
  /** Marked threads as their pointers say now, newest first. */
  overlay: Entry[];
  overlaid: Set<string>;
}

/** A segment file vanished under a reader: a writer replaced it. */
class IndexMoved extends Error {}

/** A segment file that does not parse. */
class IndexDamaged extends Error {}

const GONE = "gone";

function gone(id: string): ThreadListItem {
  return { id, pointer: null, problem: GONE, running: false };
}

function entryOf(pointer: ThreadPointer): Entry {
  return [
    pointer.thread,
    pointer.rev ?? 0,
    pointer.status,
    pointer.workflow,
    pointer.start,
    Date.parse(pointer.createdAt),
    pointer.title ?? null,
  ];
}

function itemEntry(item: ThreadListItem): Entry {
  return item.pointer === null
    ? [item.id, -1, "corrupt", null, null, ulidTime(item.id), null]
    : entryOf(item.pointer);
}

/** Whether the pointer read says what the index said of it. */
function sameEntry(item: ThreadListItem, entry: Entry): boolean {
  return item.pointer === null
    ? entry[2] === "corrupt"
    : item.pointer.rev === entry[1] && item.pointer.status === entry[2];
}

function entryMatches(entry: Entry, query: ThreadQuery, live: Set<string>): boolean {
  const [id, , status, workflow, start, createdMs, title] = entry;
  if (!pastCursor(id, query)) return false;
  if (query.statuses !== undefined) {
    const visible = status !== "corrupt" && live.has(id) ? "running" : status;
    if (!query.statuses.includes(visible)) return false;
  }
  if (query.workflow !== undefined && workflow !== query.workflow) return false;
  if (query.start !== undefined && start !== query.start) return false;
  if (query.title !== undefined) {
    if (title === null || !title.toLowerCase().includes(query.title.toLowerCase())) return false;
  }
  if (query.createdAfterMs !== undefined && !(createdMs > query.createdAfterMs)) return false;
  if (query.createdBeforeMs !== undefined && !(createdMs < query.createdBeforeMs)) return false;
  return true;
}

/** Whether any thread of `segment` could pass the query's filters. */
function mayMatch(segment: Segment, query: ThreadQuery, liveIds: string[]): boolean {
  if (!pastCursor(query.oldestFirst ? segment.last : segment.first, query)) return false;
  if (query.statuses !== undefined) {
    const stored = query.statuses.some((status) => (segment.statuses[status] ?? 0) > 0);
    const running =
      query.statuses.includes("running") &&
      liveIds.some((id) => id >= segment.first && id <= segment.last);
    if (!stored && !running) return false;
  }
  if (query.workflow !== undefined && !segment.workflows.includes(query.workflow)) return false;
  if (query.title !== undefined) {
    for (const char of query.title.toLowerCase()) if (!segment.chars.includes(char)) return false;
  }
  if (query.createdAfterMs !== undefined && !(segment.maxCreated > query.createdAfterMs))
    return false;
  if (query.createdBeforeMs !== undefined && !(segment.minCreated < query.createdBeforeMs))
    return false;
  return true;
}

/** Two newest-first (or both oldest-first) streams as one. */
function* merge(
  indexed: Iterable<Entry>,
  overlay: Entry[],
  oldestFirst: boolean,
): Generator<Entry> {
  let next = 0;
  const before = (a: string, b: string) => (oldestFirst ? a < b : a > b);
  for (const entry of indexed) {
    while (next < overlay.length && before(overlay[next]![0], entry[0])) yield overlay[next++]!;
    yield entry;
  }
  while (next < overlay.length) yield overlay[next++]!;
}

/** The last segment whose first id is not after `id`; -1 before them all. */
function segmentFor(segments: Segment[], id: string): number {
  let low = 0;
  let high = segments.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (segments[mid]!.first <= id) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

function lowerBound(entries: Entry[], id: string): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (entries[mid]![0] < id) low = mid + 1;
    else high = mid;
  }
  return low;
}

function bucketOf(start: string): string {
  const tail = start.slice(-2);
  return /^[0-9A-Za-z]{2}$/.test(tail) ? tail.toLowerCase() : "other";
}

function folderTime(dir: string): number {
  try {
    return statSync(dir).mtimeMs;
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
}

function isOrphan(marker: string): boolean {
  try {
    return Date.now() - statSync(marker).mtimeMs > ORPHAN_MARKER_MS;
  } catch {
    return false;
  }
}

/** `<thread id>.json`: temp files and strays in the folder are not threads. */
export function isPointerName(name: string): boolean {
  return name.endsWith(".json") && isThreadId(name.slice(0, -".json".length));
}

function indexError(where: string, what: string): UwfError {
  return new UwfError("STORE_UNAVAILABLE", `the thread index ${where} ${what}`, {
    hint: "run `uwf store reindex` to rebuild it from the pointers",
  });
}
