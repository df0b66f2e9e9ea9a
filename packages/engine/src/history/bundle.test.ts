import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { newUlid } from "@united-workforce/util";
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
});

describe("parseBundle", () => {
  it("says an empty file is empty, and another file's first line is not JSON", () => {
    expect(() => parseBundle("")).toThrowError(
      "not a bundle made by `uwf thread export`: the file is empty",
    );
    expect(() => parseBundle("\n  \n")).toThrowError("the file is empty");
    expect(() => parseBundle("hello\n")).toThrowError("its first line is not JSON");
  });
});
