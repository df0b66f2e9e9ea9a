import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeNestedFanout } from "./fixtures/fanout/nested.js";

/**
 * `thread export <parent>` carries its fan-out children, and theirs: a parent fans out to two
 * children of workflow `mid`, each of which fans out to one grandchild (script steps only).
 */

const LEAF = `console.log(JSON.stringify({ $status: "done", task: process.env.UWF_TASK }));`;

interface Pointer {
  thread: string;
  start: string;
  head: string;
  parent?: { thread: string; step: string; index: number };
}

let source: TempHome;
let target: TempHome;
beforeEach(() => {
  source = tempHome();
  target = tempHome();
});
afterEach(() => {
  source.cleanup();
  target.cleanup();
});

const inHome =
  (home: string) =>
  (...args: string[]) =>
    runUwf(args, { home, cwd: home });

async function json<T>(uwf: ReturnType<typeof inHome>, ...args: string[]): Promise<T> {
  const run = await uwf(...args, "--format", "json");
  if (run.code !== 0) throw new Error(`uwf ${args.join(" ")}: ${run.code}\n${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** A completed parent with 2 children and 2 grandchildren, and an unrelated thread beside it. */
async function family(uwf: ReturnType<typeof inHome>, home: string) {
  const top = writeNestedFanout(home, { leafScript: LEAF });
  const { thread } = await json<{ thread: string }>(uwf, "thread", "start", top, "-p", "Go");
  const exec = await json<{ status: string }>(uwf, "thread", "exec", thread, "-c", "3");
  expect(exec.status).toBe("completed");
  const other = await json<{ thread: string }>(uwf, "thread", "start", top, "-p", "Other");
  const file = join(home, "family.uwf-bundle");
  const exported = await json<{ threads: string[] }>(uwf, "thread", "export", thread, "-o", file);
  const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as {
    threads: Pointer[];
  };
  return { thread, other: other.thread, file, exported, header };
}

describe("thread export of a fan-out parent", () => {
  it("bundles its children and grandchildren, and they import, show and verify on the other side", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, other, file, exported, header } = await family(from, source.home);

    // The parent first, then its 2 children, then their 2 children; nothing unrelated.
    expect(exported.threads).toHaveLength(5);
    expect(exported.threads[0]).toBe(thread);
    expect(exported.threads).not.toContain(other);
    const children = header.threads.filter((p) => p.parent?.thread === thread);
    expect(children.map((c) => c.parent!.index).sort()).toEqual([0, 1]);
    for (const child of children) {
      expect(header.threads.filter((p) => p.parent?.thread === child.thread)).toHaveLength(1);
    }

    const imported = await json<{ threads: { thread: string; status: string }[] }>(
      to,
      "thread",
      "import",
      file,
    );
    expect(imported.threads.map((t) => [t.thread, t.status])).toEqual(
      exported.threads.map((id) => [id, "imported"]),
    );
    const verify = await to("thread", "verify", "--all");
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    for (const id of exported.threads) {
      const there = await json<Record<string, unknown>>(to, "thread", "show", id);
      const here = await json<Record<string, unknown>>(from, "thread", "show", id);
      for (const key of ["status", "head", "steps", "parent", "workflow"]) {
        expect(there[key], `${id} ${key}`).toEqual(here[key]);
      }
    }
    // The join step names the children, which are here now.
    const parent = await json<{ head: string }>(to, "thread", "show", thread);
    const join_ = await json<{ outputValue: { results: { thread: string }[] } }>(
      to,
      "step",
      "show",
      parent.head,
    );
    expect(join_.outputValue.results.map((r) => r.thread).sort()).toEqual(
      children.map((c) => c.thread).sort(),
    );
    // Importing again changes nothing.
    const again = await json<{ threads: { status: string }[] }>(to, "thread", "import", file);
    expect(new Set(again.threads.map((t) => t.status))).toEqual(new Set(["unchanged"]));
  });

  it("refuses the whole bundle when a child's or a grandchild's nodes were altered, and writes nothing", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, file, header } = await family(from, source.home);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const child = header.threads.find((p) => p.parent?.thread === thread)!;
    const grandchild = header.threads.find((p) => p.parent?.thread === child.thread)!;

    // A grandchild's step with one byte changed: its line no longer hashes to its name.
    const flipped = lines.map((line) =>
      line.startsWith(`${grandchild.head} `)
        ? line.replace('"role":"leaf"', '"role":"lief"')
        : line,
    );
    expect(flipped).not.toEqual(lines);
    writeFileSync(join(target.home, "flipped.uwf-bundle"), `${flipped.join("\n")}\n`);
    const bad = await to("thread", "import", join(target.home, "flipped.uwf-bundle"));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`claims node "${grandchild.head}"`);

    // A child's StartNode left out: the parent verifies alone, but the child does not.
    const dropped = lines.filter((line) => !line.startsWith(`${child.start} `));
    expect(dropped).toHaveLength(lines.length - 1);
    writeFileSync(join(target.home, "dropped.uwf-bundle"), `${dropped.join("\n")}\n`);
    const missing = await to("thread", "import", join(target.home, "dropped.uwf-bundle"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`thread ${child.thread} in the bundle does not verify`);
    expect(missing.stderr).toContain("nothing was imported");

    const list = await json<{ threads: unknown[] }>(to, "thread", "list");
    expect(list.threads).toHaveLength(0);
  });
});

describe("thread import of a fan-out child", () => {
  it("says when a child's subfolder does not exist here", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, file, header } = await family(from, source.home);
    const child = header.threads.find((p) => p.parent?.thread === thread)!;
    const [first, ...rest] = readFileSync(file, "utf8").split("\n");
    const doc = JSON.parse(first!) as { threads: (Pointer & { cwd: string })[] };
    doc.threads.find((p) => p.thread === child.thread)!.cwd = join(source.home, "packages", "a");
    writeFileSync(file, [JSON.stringify(doc), ...rest].join("\n"));

    const imported = await to("thread", "import", file);
    expect(imported.code, imported.stderr).toBe(0);
    const lines = imported.stdout.split("\n");
    const at = lines.findIndex((line) => line.startsWith(`${child.thread}: imported`));
    expect(lines.slice(at + 1)).toContain(
      `  note: it runs in ${join(target.home, "packages", "a")}, which does not exist here: create it before \`uwf thread exec\``,
    );
    expect(lines.filter((line) => line.includes("does not exist here"))).toHaveLength(1);
  });

  it("refuses a child its parent's fan-out did not make, inside the bundle or under a parent here", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, other, file, header } = await family(from, source.home);
    const text = readFileSync(file, "utf8");
    const child = header.threads.find((p) => p.parent?.thread === thread)!;
    const bad = join(target.home, "bad.uwf-bundle");
    const withHeader = (bundleText: string, edit: (threads: Pointer[]) => void) => {
      const [first, ...rest] = bundleText.split("\n");
      const doc = JSON.parse(first!) as { threads: Pointer[] };
      edit(doc.threads);
      writeFileSync(bad, [JSON.stringify(doc), ...rest].join("\n"));
    };

    // Inside the bundle: a child claiming an item the fan-out does not have.
    withHeader(text, (threads) => {
      threads.find((p) => p.thread === child.thread)!.parent!.index = 7;
    });
    const beyond = await to("thread", "import", bad);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain(`thread ${child.thread} in the bundle: its fan-out parent`);
    expect(beyond.stderr).toContain("there is no item 7");
    expect(beyond.stderr).toContain("nothing was imported");
    expect((await json<{ total: number }>(to, "thread", "list")).total).toBe(0);

    // Under a parent only here: an unrelated thread dressed as the parent's child for item 0.
    expect((await to("thread", "import", file)).code).toBe(0);
    const tree = await to("thread", "tree", thread);
    const stray = join(source.home, "other.uwf-bundle");
    expect((await from("thread", "export", other, "-o", stray)).code).toBe(0);
    withHeader(readFileSync(stray, "utf8"), ([pointer]) => {
      pointer!.parent = { ...child.parent!, index: 0 };
    });
    const forged = await to("thread", "import", bad);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain(`its fan-out parent ${thread} (in this store) makes thread`);
    expect(forged.stderr).toContain("nothing was imported");
    expect((await to("thread", "tree", thread)).stdout).toBe(tree.stdout);
    const list = await json<{ threads: { thread: string }[] }>(to, "thread", "list");
    expect(list.threads.map((t) => t.thread)).not.toContain(other);
  });
});

describe("thread list of a fan-out", () => {
  it("marks each child with its parent, and --hide-children leaves them out, paging what is left", async () => {
    const uwf = inHome(source.home);
    const { thread, other, header } = await family(uwf, source.home);
    type List = { threads: { thread: string; parent?: string }[]; total: number };
    const all = await json<List>(uwf, "thread", "list");
    expect(all.total).toBe(6);
    const parents = Object.fromEntries(all.threads.map((t) => [t.thread, t.parent ?? null]));
    for (const pointer of header.threads) {
      expect(parents[pointer.thread]).toBe(pointer.parent?.thread ?? null);
    }
    expect(parents[other]).toBeNull();
    const text = (await uwf("thread", "list")).stdout.split("\n");
    const child = header.threads.find((p) => p.parent?.thread === thread)!;
    expect(text.find((line) => line.startsWith(child.thread))).toContain(`fan-out of ${thread}`);
    expect(text.find((line) => line.startsWith(thread))).not.toContain("fan-out of");

    const top = await json<List>(uwf, "thread", "list", "--hide-children");
    expect(top).toEqual({
      threads: [expect.objectContaining({ thread: other }), expect.objectContaining({ thread })],
      more: false,
      total: 2,
    });
    const second = await json<List>(
      uwf,
      "thread",
      "list",
      "--hide-children",
      "--limit",
      "1",
      "--offset",
      "1",
    );
    expect(second.threads.map((t) => t.thread)).toEqual([thread]);
    expect(second.total).toBe(2);
  });
});

describe("thread tree of a fan-out", () => {
  it("shows the children under the parent, and the grandchildren under them, by item", async () => {
    const uwf = inHome(source.home);
    const { thread, other, header } = await family(uwf, source.home);
    const doc = await json<{
      threads: { thread: string }[];
      children: { thread: string; parent: string; index: number; status: string }[];
    }>(uwf, "thread", "tree", thread);
    expect(doc.threads.map((t) => t.thread)).toEqual([thread]);
    expect(doc.children).toHaveLength(4);
    for (const child of doc.children) {
      const pointer = header.threads.find((p) => p.thread === child.thread)!;
      expect([child.parent, child.index, child.status]).toEqual([
        pointer.parent!.thread,
        pointer.parent!.index,
        "completed",
      ]);
    }
    const text = (await uwf("thread", "tree", thread)).stdout.trimEnd().split("\n");
    const [a, b] = [0, 1].map(
      (i) => header.threads.find((p) => p.parent?.thread === thread && p.parent.index === i)!,
    );
    const grand = (of: Pointer) => header.threads.find((p) => p.parent?.thread === of.thread)!;
    expect(text).toHaveLength(5);
    expect(text[0]).toContain(`${thread}  completed`);
    expect(text[1]).toMatch(
      new RegExp(`^├⇉ item 0: ${a!.thread}  completed  1 step  mid  “[^”]+”$`),
    );
    expect(text[2]).toMatch(
      new RegExp(`^│  └⇉ item 0: ${grand(a!).thread}  completed  1 step  mid/leaf  “[^”]+”$`),
    );
    expect(text[3]).toMatch(
      new RegExp(`^└⇉ item 1: ${b!.thread}  completed  1 step  mid  “[^”]+”$`),
    );
    expect(text[4]).toMatch(
      new RegExp(`^   └⇉ item 0: ${grand(b!).thread}  completed  1 step  mid/leaf  “[^”]+”$`),
    );
    // A thread without fan-out shows as before, with no children.
    const plain = await json<{ children?: unknown }>(uwf, "thread", "tree", other);
    expect(plain.children).toBeUndefined();
  });
});
