import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StartPayload, ThreadPointer } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { makePrivateDir, UwfError, writeFileAtomic } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["thread", "read"],
  summary: "print a thread as a markdown transcript, newest steps within a character quota",
  description:
    "Reads back from the head only as far as the quota needs. Page back with --before <the oldest step shown>; --start reads from the beginning instead.",
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "-q, --quota <chars>",
      type: "integer",
      min: 1,
      description: "at most this many characters of steps",
      default: "20000",
      hint: "It counts characters of steps, e.g. --quota 5000.",
    },
    { flags: "--before <step>", type: "hash", description: "show the steps before this step" },
    { flags: "--start", type: "boolean", description: "read from the first step forward" },
  ],
  async run(ctx, [thread], options) {
    const engine = await import("@united-workforce/engine");
    const store = await ctx.store();
    const pointer = await store.threads.get(thread!);
    const start = await store.cas.getPayload<StartPayload>(pointer.start, "start");
    const before = options.before as string | undefined;
    const reader: PageReader = { engine, cas: store.cas, home: ctx.home, pointer, start };
    const page =
      before === undefined
        ? { from: pointer.head === pointer.start ? null : pointer.head, newest: pointer.steps }
        : await pageBefore(reader, before);
    const { parts, more, oldestShown } = options.start
      ? await readFromStart(reader, page.from, options.quota)
      : await readFromHead(reader, page, options.quota);
    const header = `# Thread ${pointer.thread} · ${pointer.workflow} · ${pointer.status}\n`;
    // Notes `thread steer` left: the next step takes them, after every step shown here.
    const pending =
      before === undefined
        ? (pointer.guidance ?? []).map(
            (note) => `## Pending guidance (${note.at})\n\n${note.text.trim()}\n`,
          )
        : [];
    const markdown = [header, ...parts, ...pending].join("\n");
    const doc = { thread: pointer.thread, markdown, more, oldestShown };
    return result(doc, (d) => d.markdown);
  },
});

/** What reading a page works with: the engine's transcript, the store, the thread. */
interface PageReader {
  engine: Pick<
    typeof import("@united-workforce/engine"),
    "readStep" | "threadStarts" | "walkBack" | "renderStep" | "renderStart"
  >;
  cas: Cas;
  home: string;
  pointer: ThreadPointer;
  start: StartPayload;
}

/** Where a page starts (null: at the StartNode), and the number of its newest step if known. */
interface PageStart {
  from: string | null;
  newest: number | null;
}

/** A page: its parts in reading order, whether steps were left out, the oldest step shown. */
interface Page {
  parts: string[];
  more: boolean;
  oldestShown: string | null;
}

/** The page before step `before` (a `--before` a page printed), numbered when it can be. */
async function pageBefore(reader: PageReader, before: string): Promise<PageStart> {
  const { engine, cas, pointer } = reader;
  const step = await engine.readStep(cas, before);
  if (!(await engine.threadStarts(cas, pointer.start)).includes(step.start)) {
    throw new UwfError("USAGE", `step ${before} is not part of thread ${pointer.thread}`, {
      hint: `Page back with the --before value it printed; \`uwf step list ${pointer.thread}\` lists its steps.`,
    });
  }
  // Its page is numbered as the first is. The page that printed this --before remembered
  // its number; without that, a walk back from the head to it finds it, which costs what
  // the pages read so far cost. A step of the same start off this chain (a fork's) leaves
  // the page unnumbered.
  let newest: number | null = null;
  const known = rememberedNumber(reader.home, before);
  if (known !== null) {
    newest = known - 1;
  } else {
    let number = pointer.steps;
    const head = pointer.head === pointer.start ? null : pointer.head;
    for await (const { hash } of engine.walkBack(cas, head)) {
      if (hash === before) {
        newest = number - 1;
        break;
      }
      number--;
    }
  }
  return { from: step.prev, newest };
}

/** `--start`: the task, then the steps from the first forward, as many as the quota holds. */
async function readFromStart(
  reader: PageReader,
  from: string | null,
  quota: number,
): Promise<Page> {
  const { engine, cas, pointer } = reader;
  const parts: string[] = [];
  let used = 0;
  let more = false;
  const all = [];
  for await (const item of engine.walkBack(cas, from)) all.push(item);
  all.reverse();
  let index = 0;
  for (const { hash, step } of all) {
    const text = await engine.renderStep(cas, hash, step, `Step ${++index}`);
    if (used + text.length > quota && parts.length > 0) {
      more = true;
      break;
    }
    parts.push(text);
    used += text.length;
  }
  parts.unshift(engine.renderStart(reader.start));
  const left = all.length - (parts.length - 1);
  if (more)
    parts.push(
      `_${left} later step${left === 1 ? "" : "s"} not shown: raise --quota, or read the newest with uwf thread read ${pointer.thread}_\n`,
    );
  return { parts, more, oldestShown: null };
}

/**
 * The newest steps from `page.from` back, as many as the quota holds, oldest first; the task
 * when they reach it, else how to page back (and the number of the oldest shown, remembered).
 */
async function readFromHead(reader: PageReader, page: PageStart, quota: number): Promise<Page> {
  const { engine, cas, pointer } = reader;
  const parts: string[] = [];
  let used = 0;
  let more = false;
  let oldestShown: string | null = null;
  let number = page.newest;
  for await (const { hash, step } of engine.walkBack(cas, page.from)) {
    const text = await engine.renderStep(
      cas,
      hash,
      step,
      number === null ? undefined : `Step ${number}`,
    );
    if (used + text.length > quota && parts.length > 0) {
      more = true;
      break;
    }
    parts.push(text);
    used += text.length;
    oldestShown = hash;
    if (number !== null) number--;
  }
  parts.reverse();
  if (more && oldestShown !== null && number !== null) {
    rememberNumber(reader.home, oldestShown, number + 1);
  }
  if (more)
    parts.unshift(
      `_Earlier steps not shown: uwf thread read ${pointer.thread} --before ${oldestShown}_\n`,
    );
  else parts.unshift(engine.renderStart(reader.start));
  return { parts, more, oldestShown };
}

/**
 * Step numbers a page printed a `--before` for, in `<home>/cache/step-numbers/<step hash>`, so
 * that the next page needs no walk from the head: a step's number, its place from the start,
 * is fixed by its hash, whatever thread or fork reaches it. A cache: missing, unreadable or
 * unwritable, the page walks as before.
 */
function numbersDir(home: string): string {
  return join(home, "cache", "step-numbers");
}

function rememberedNumber(home: string, step: string): number | null {
  try {
    const number = Number(readFileSync(join(numbersDir(home), step), "utf8"));
    return Number.isSafeInteger(number) && number > 0 ? number : null;
  } catch {
    return null;
  }
}

function rememberNumber(home: string, step: string, number: number): void {
  try {
    makePrivateDir(numbersDir(home));
    writeFileAtomic(join(numbersDir(home), step), String(number));
  } catch {
    // The next page walks instead.
  }
}
