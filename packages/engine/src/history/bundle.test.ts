import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { hashBytes, newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { exportBundle, parseBundle } from "./bundle.js";

let home: string;
let store: Store;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-bundle-"));
  store = await openHomeStore(home);
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

async function bundleOf(from: Store, ids: string[]): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of exportBundle(from, ids)) lines.push(line);
  return lines;
}

/** The node hashes of a bundle's lines, header left out. */
const hashesOf = (lines: string[]) =>
  lines.slice(1).map((line) => line.slice(0, line.indexOf(" ")));

describe("exportBundle", () => {
  it("writes each node once for a thread with no steps, whose head is its StartNode", async () => {
    const { thread, start } = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    const lines = await bundleOf(store, [thread]);
    const hashes = hashesOf(lines);
    expect(hashes.filter((h) => h === start)).toHaveLength(1);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(JSON.parse(lines[0]!).nodes).toBe(hashes.length);
  });

  it("writes the StartNode and workflow forks share once", async () => {
    const { thread, start } = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    const step = await appendStep(store, thread, {
      role: "writer",
      output: { $status: "written", text: "hi" },
    });
    const pointer = await store.threads.get(thread);
    const fork = newUlid();
    await store.threads.create({ ...pointer, thread: fork, forkedFrom: step });
    const hashes = hashesOf(await bundleOf(store, [thread, fork]));
    expect(hashes.filter((h) => h === start)).toHaveLength(1);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
  it("lists nodes as bundles always have: depth first from the pointers, the last ref first", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    for (let n = 0; n < 3; n++) {
      await appendStep(store, thread, {
        role: "writer",
        output: { $status: "written", text: `${n}` },
      });
    }
    const pointer = await store.threads.get(thread);
    // The walk every earlier uwf wrote bundles by, node by node.
    const expected: string[] = [];
    const seen = new Set([pointer.head, pointer.start, pointer.workflowHash]);
    const stack = [...seen];
    while (stack.length > 0) {
      const hash = stack.pop()!;
      const { node, bytes } = await store.cas.read(hash);
      expected.push(`${hash} ${Buffer.from(bytes).toString("utf8")}`);
      for (const ref of await store.cas.refsOf(node)) {
        if (!seen.has(ref)) {
          seen.add(ref);
          stack.push(ref);
        }
      }
    }
    const lines = await bundleOf(store, [thread]);
    expect(lines.slice(1)).toEqual(expected);
    expect(JSON.parse(lines[0]!).nodes).toBe(expected.length);
  });
});

describe("parseBundle", () => {
  it("says an empty file is empty, and another file's first line is not JSON", async () => {
    await expect(parseBundle("")).rejects.toThrowError(
      "not a bundle made by `uwf thread export`: the file is empty",
    );
    await expect(parseBundle("\n  \n")).rejects.toThrowError("the file is empty");
    await expect(parseBundle("hello\n")).rejects.toThrowError("its first line is not JSON");
    await expect(parseBundle("\nhello\n")).rejects.toThrowError("its first line is not JSON");
  });

  it("reads a bundle in chunks that split its lines anywhere, as from a file", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    await appendStep(store, thread, { role: "writer", output: { $status: "written", text: "hi" } });
    const text = `${(await bundleOf(store, [thread])).join("\n")}\n`;
    const whole = await parseBundle(text);
    const bytes = Buffer.from(text);
    const split = await parseBundle(chunksOf(bytes, 7));
    expect([...split.nodes.keys()]).toEqual([...whole.nodes.keys()]);
    expect(split.header).toEqual(whole.header);
  });

  it("stops at a line longer than its limit, before holding more of it", async () => {
    const header = JSON.stringify({ format: "uwf-thread-bundle", version: 1, threads: [{}] });
    const read = { chunks: 0 };
    const endless = async function* () {
      yield `${header}\n`;
      for (;;) {
        read.chunks++;
        yield new Uint8Array(1024);
      }
    };
    const error = await parseBundle(endless(), { maxLineBytes: 4096, maxTotalBytes: 1 << 30 })
      .then(() => null)
      .catch((e: unknown) => e as { code: string; message: string });
    expect(error?.code).toBe("BUNDLE_TOO_LARGE");
    expect(error?.message).toBe(
      "line 2 of the bundle is longer than 4096 bytes: reading stopped there, and nothing was imported",
    );
    expect(read.chunks).toBe(5);
  });

  it("stops once the whole is larger than its limit, however short its lines", async () => {
    const header = JSON.stringify({ format: "uwf-thread-bundle", version: 1, threads: [{}] });
    const node = `${hashBytes(Buffer.from("{}"))} {}\n`;
    const lines = async function* () {
      yield `${header}\n`;
      for (;;) yield node;
    };
    const error = await parseBundle(lines(), { maxLineBytes: 1024, maxTotalBytes: 2 * 1024 * 1024 })
      .then(() => null)
      .catch((e: unknown) => e as { code: string; message: string });
    expect(error?.code).toBe("BUNDLE_TOO_LARGE");
    expect(error?.message).toContain("the bundle is larger than 2 MiB");
  });
});

async function* chunksOf(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
