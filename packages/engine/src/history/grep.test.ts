import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Cas, Store } from "@united-workforce/store";
import { appendStep, openHomeStore, seedThread } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { grepMatcher, grepThreads } from "./grep.js";

let home: string;
let store: Store;
beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "uwf-grep-"));
  store = await openHomeStore(home);
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe("grepMatcher", () => {
  const matches = async (
    pattern: string,
    line: string,
    options: { fixedStrings?: boolean; ignoreCase?: boolean } = {},
  ) => (await grepMatcher(pattern, options))(line);

  it("matches a regular expression, or a literal with fixedStrings, with or without case", async () => {
    expect(await matches("ne+dle", "a needle")).toBe(true);
    expect(await matches("ne+dle", "a NEEDLE")).toBe(false);
    expect(await matches("ne+dle", "a NEEDLE", { ignoreCase: true })).toBe(true);
    expect(await matches("a.b", "axb", { fixedStrings: true })).toBe(false);
    expect(await matches("a.b", "a.b", { fixedStrings: true })).toBe(true);
    expect(await matches("A.B", "xa.bx", { fixedStrings: true, ignoreCase: true })).toBe(true);
  });

  it("runs patterns in linear time where V8 can, and the rest on the backtracking engine", async () => {
    const nested = await grepMatcher("(a+)+$");
    expect(nested.linear).toBe(true);
    expect(nested(`${"a".repeat(50)}!`)).toBe(false);
    const backreference = await grepMatcher("(a)\\1");
    expect(backreference.linear).toBe(false);
    expect(backreference("xaax")).toBe(true);
  });

  it("tells from a whole text that no line can match, and never misses a line that does", async () => {
    const anchored = await grepMatcher("^needle$");
    expect(anchored.mayMatch?.("hay\nneedle\nhay")).toBe(true);
    expect(anchored.mayMatch?.("hay\nneedles")).toBe(false);
    expect((await grepMatcher("needle", { ignoreCase: true })).mayMatch?.("a NEEDLE")).toBe(true);
  });

  it("refuses an empty or broken pattern as a usage error", async () => {
    await expect(grepMatcher("")).rejects.toMatchObject({ code: "USAGE" });
    await expect(grepMatcher("(")).rejects.toMatchObject({ code: "USAGE" });
  });
});

describe("grepThreads", () => {
  it("reads each node once and reports a step that forks share once", async () => {
    const a = await seedThread(store, { workflow: relay, prompt: "p", cwd: home, createdAtMs: 1 });
    const first = await appendStep(store, a.thread, {
      role: "writer",
      output: { $status: "written", text: "a needle here" },
      body: "shared needle body",
    });
    await appendStep(store, a.thread, {
      role: "reviewer",
      output: { $status: "approved" },
      body: "shared needle body",
    });
    // Threads are searched in id order (this one first). A fork of the writer step, as `uwf step fork` makes it, going on its own way.
    const pointer = await store.threads.get(a.thread);
    const fork = "01ARZ3NDEKTSV4RRFFQ69G5FAZ";
    await store.threads.create({ ...pointer, thread: fork, head: first, steps: 1 });
    const forked = await appendStep(store, fork, {
      role: "reviewer",
      output: { $status: "asks", question: "which needle?" },
    });

    const reads = new Map<string, number>();
    const cas = {
      getPayload: (hash: string, kind?: "step") => {
        reads.set(hash, (reads.get(hash) ?? 0) + 1);
        return store.cas.getPayload(hash, kind);
      },
      isKept: (hash: string) => store.cas.isKept(hash),
      prefetchChains: store.cas.prefetchChains.bind(store.cas),
    } as unknown as Cas;
    const found = await grepThreads(
      { cas, threads: store.threads },
      { in: ["outputs", "bodies"], matches: await grepMatcher("needle") },
    );

    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    expect(found).toMatchObject({ threads: 2, steps: 3 });
    const seen = found.matches.map((m) => [m.thread, m.step, m.role, m.in, m.lines[0]!.text]);
    expect(seen).toEqual([
      [a.thread, 1, "writer", "output", "text: a needle here"],
      [a.thread, 1, "writer", "body", "shared needle body"],
      [a.thread, 2, "reviewer", "body", "shared needle body"],
      // The fork's first step is the writer step above: not reported twice.
      [fork, 2, "reviewer", "output", "question: which needle?"],
    ]);
    expect(found.matches[3]!.hash).toBe(forked);
  });

  it("searches only the threads it is given", async () => {
    const a = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    const b = await seedThread(store, { workflow: relay, prompt: "p", cwd: home });
    for (const { thread } of [a, b]) {
      await appendStep(store, thread, {
        role: "writer",
        output: { $status: "written", text: thread },
      });
    }
    const found = await grepThreads(store, {
      threads: [b.thread],
      in: ["outputs"],
      matches: await grepMatcher("^text:"),
    });
    expect(found.matches.map((m) => m.thread)).toEqual([b.thread]);
  });
});
