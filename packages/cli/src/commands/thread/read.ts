import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StartPayload } from "@united-workforce/protocol";
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
    const { readStep, renderStart, renderStep, walkBack } = await import(
      "@united-workforce/engine"
    );
    const quota = options.quota;
    const store = await ctx.store();
    const { cas } = store;
    const pointer = await store.threads.get(thread!);
    const start = await cas.getPayload<StartPayload>(pointer.start, "start");
    const before = options.before as string | undefined;
    let from: string | null = pointer.head === pointer.start ? null : pointer.head;
    // The number of the newest step shown (counted from the start), when known.
    let newest: number | null = pointer.steps;
    if (before !== undefined) {
      const step = await readStep(cas, before);
      if (step.start !== pointer.start) {
        throw new UwfError("USAGE", `step ${before} is not part of thread ${pointer.thread}`, {
          hint: `Page back with the --before value it printed; \`uwf step list ${pointer.thread}\` lists its steps.`,
        });
      }
      // Its page is numbered as the first is. The page that printed this --before remembered
      // its number; without that, a walk back from the head to it finds it, which costs what
      // the pages read so far cost. A step of the same start off this chain (a fork's) leaves
      // the page unnumbered.
      newest = null;
      const known = rememberedNumber(ctx.home, before);
      if (known !== null) {
        newest = known - 1;
      } else {
        let number = pointer.steps;
        for await (const { hash } of walkBack(cas, from)) {
          if (hash === before) {
            newest = number - 1;
            break;
          }
          number--;
        }
      }
      from = step.prev;
    }

    const parts: string[] = [];
    let used = 0;
    let oldestShown: string | null = null;
    let more = false;
    if (options.start) {
      const all = [];
      for await (const item of walkBack(cas, from)) all.push(item);
      all.reverse();
      let index = 0;
      for (const { hash, step } of all) {
        const text = await renderStep(cas, hash, step, `Step ${++index}`);
        if (used + text.length > quota && parts.length > 0) {
          more = true;
          break;
        }
        parts.push(text);
        used += text.length;
      }
      parts.unshift(renderStart(start));
      const left = all.length - (parts.length - 1);
      if (more)
        parts.push(
          `_${left} later step${left === 1 ? "" : "s"} not shown: raise --quota, or read the newest with uwf thread read ${pointer.thread}_\n`,
        );
    } else {
      let number = newest;
      for await (const { hash, step } of walkBack(cas, from)) {
        const text = await renderStep(
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
        rememberNumber(ctx.home, oldestShown, number + 1);
      }
      if (more)
        parts.unshift(
          `_Earlier steps not shown: uwf thread read ${pointer.thread} --before ${oldestShown}_\n`,
        );
      else parts.unshift(renderStart(start));
    }
    const header = `# Thread ${pointer.thread} · ${pointer.workflow} · ${pointer.status}\n`;
    const markdown = [header, ...parts].join("\n");
    const doc = { thread: pointer.thread, markdown, more, oldestShown };
    return result(doc, (d) => d.markdown);
  },
});

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
