import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepPayload, ThreadPointer, UwfEvent } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import {
  makeGitRepo,
  runGit,
  seedThread,
  type TempHome,
  tempHome,
  type WorkflowFixture,
} from "@united-workforce/test-utils";
import { createEventStream } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testRun } from "../__testing__/run-context.js";
import { verifyThread } from "../history/verify-thread.js";
import { runSteps } from "../runner/run-loop.js";
import { takeThread } from "../threads/lease.js";
import { checkReceipt } from "./check-receipt.js";
import { diffStat, snapshotWorkingTree } from "./snapshot.js";
import { receiptStatement } from "./statement.js";

let temp: TempHome;
let store: Store;
let repo: string;
const env = () => ({ PATH: process.env.PATH, HOME: temp.home });
const git = (...args: string[]) => runGit(temp.home, repo, ...args);

beforeEach(async () => {
  temp = tempHome();
  store = await openStore({ home: temp.home });
  repo = makeGitRepo(temp.home, join(temp.home, "repo"), {
    "a.txt": "one\ntwo\n",
    "gone.txt": "bye\n",
  });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

describe("a working tree's snapshot", () => {
  it("takes uncommitted and untracked changes, and leaves the index and HEAD as they were", async () => {
    const clean = await snapshotWorkingTree(repo, env());
    expect(clean).toMatchObject({ root: repo, commit: git("rev-parse", "HEAD") });
    expect(clean!.tree).toBe(git("rev-parse", "HEAD^{tree}"));

    writeFileSync(join(repo, "a.txt"), "one\n2\nthree\n");
    writeFileSync(join(repo, "new.txt"), "fresh\n");
    writeFileSync(join(repo, "blob.bin"), Buffer.from([0, 1, 2, 0, 255]));
    rmSync(join(repo, "gone.txt"));
    writeFileSync(join(repo, ".gitignore"), "ignored.log\n");
    writeFileSync(join(repo, "ignored.log"), "not taken\n");
    git("add", "new.txt");
    const index = readFileSync(join(repo, ".git", "index"));
    const status = git("status", "--porcelain");

    const dirty = await snapshotWorkingTree(repo, env());
    expect(dirty!.commit).toBe(clean!.commit);
    expect(dirty!.tree).not.toBe(clean!.tree);
    expect(git("ls-tree", "--name-only", dirty!.tree).split("\n").sort()).toEqual([
      ".gitignore",
      "a.txt",
      "blob.bin",
      "new.txt",
    ]);
    expect(readFileSync(join(repo, ".git", "index"))).toEqual(index);
    expect(git("status", "--porcelain")).toBe(status);
    expect(git("rev-parse", "HEAD")).toBe(clean!.commit);

    expect(await diffStat(repo, env(), clean!.tree, dirty!.tree)).toEqual({
      files: 5,
      insertions: 4,
      deletions: 2,
      perFile: [
        { path: ".gitignore", insertions: 1, deletions: 0 },
        { path: "a.txt", insertions: 2, deletions: 1 },
        { path: "blob.bin", insertions: null, deletions: null },
        { path: "gone.txt", insertions: 0, deletions: 1 },
        { path: "new.txt", insertions: 1, deletions: 0 },
      ],
    });
  });

  it("is nothing outside a working tree, and has no commit on a branch without one", async () => {
    expect(await snapshotWorkingTree(temp.home, env())).toBeNull();
    const unborn = join(temp.home, "unborn");
    runGit(temp.home, temp.home, "init", "--quiet", unborn);
    writeFileSync(join(unborn, "x.txt"), "x\n");
    const state = await snapshotWorkingTree(unborn, env());
    expect(state!.commit).toBeNull();
    expect(runGit(temp.home, unborn, "cat-file", "-t", state!.tree)).toBe("tree");
  });
});

/** A command role that appends a line to notes.txt (in its cwd) and reports `done`. */
const scribe: WorkflowFixture = {
  name: "scribe",
  roles: {
    scribe: {
      frontmatter: { properties: { $status: { const: "done" } }, required: ["$status"] },
      run: ["/bin/sh", "-c", 'echo line >> notes.txt; echo \'{"$status":"done"}\''],
    },
  },
  graph: {
    $START: {
      new: { role: "scribe", prompt: "Write." },
      resume: { role: "scribe", prompt: "Write." },
    },
    scribe: { done: { role: "scribe", prompt: "Again." } },
  },
};

async function runScribe(cwd: string, count: number, events: UwfEvent[] = []) {
  const seeded = await seedThread(store, { workflow: scribe, prompt: "Go", cwd });
  await steps(seeded.thread, count, events);
  return seeded;
}

async function steps(thread: string, count: number, events: UwfEvent[] = []) {
  const run = testRun({
    store,
    cwd: temp.home,
    config: () => ({}),
    env: env(),
    events: createEventStream((event) => events.push(event)),
    signal: new AbortController().signal,
  });
  const lease = await takeThread(store, thread, "test");
  try {
    await runSteps(run, thread, { count, lease });
  } finally {
    await lease.release();
  }
}

async function chainOf(pointer: ThreadPointer): Promise<{ hash: string; step: StepPayload }[]> {
  const chain: { hash: string; step: StepPayload }[] = [];
  for (let hash: string | null = pointer.head; hash !== null && hash !== pointer.start; ) {
    const step: StepPayload = await store.cas.getPayload<StepPayload>(hash, "step");
    chain.unshift({ hash, step });
    hash = step.prev;
  }
  return chain;
}

describe("a step's receipt", () => {
  it("records the tree before and after each step, chained, with the diff stat", async () => {
    const { thread } = await runScribe(repo, 2);
    const pointer = await store.threads.get(thread);
    const [first, second] = await chainOf(pointer);
    const head = git("rev-parse", "HEAD");
    expect(first!.step.git).toMatchObject({
      before: { commit: head, tree: git("rev-parse", "HEAD^{tree}") },
      after: { commit: head },
      diffStat: {
        files: 1,
        insertions: 1,
        deletions: 0,
        perFile: [{ path: "notes.txt", insertions: 1, deletions: 0 }],
      },
    });
    expect(second!.step.git!.before.tree).toBe(first!.step.git!.after.tree);
    expect(second!.step.git!.diffStat).toMatchObject({ files: 1, insertions: 1 });
    expect((await store.cas.get(first!.hash)).type).toBe(store.cas.builtin("step2"));
    expect((await verifyThread(store, thread)).ok).toBe(true);
  });

  it("is not taken outside a working tree: the step keeps the first edition", async () => {
    const { thread } = await runScribe(temp.home, 1);
    const [only] = await chainOf(await store.threads.get(thread));
    expect(only!.step.git).toBeUndefined();
    expect((await store.cas.get(only!.hash)).type).toBe(store.cas.builtin("step"));
  });

  it("never fails its step: a git that fails leaves a warning and a step without receipt", async () => {
    writeFileSync(join(repo, ".git", "index"), "not an index");
    const events: UwfEvent[] = [];
    const { thread } = await runScribe(repo, 1, events);
    const pointer = await store.threads.get(thread);
    expect(pointer.steps).toBe(1);
    const [only] = await chainOf(pointer);
    expect(only!.step.git).toBeUndefined();
    expect(events.find((e) => e.event === "step.receipt-failed")).toMatchObject({
      thread,
      role: "scribe",
      cwd: repo,
      reason: expect.stringContaining("git add"),
    });
  });
});

describe("verifying recorded trees", () => {
  it("notes a working tree changed between steps, and names a commit or tree the repository lacks", async () => {
    const { thread } = await runScribe(repo, 1);
    writeFileSync(join(repo, "between.txt"), "by hand\n");
    await steps(thread, 1);
    const pointer = await store.threads.get(thread);
    const checked = await verifyThread(store, thread, { lookUp: "thread cwd", env: env() });
    expect(checked.ok).toBe(true);
    expect(checked.repo).toBe(repo);
    expect(checked.notes).toEqual([
      expect.objectContaining({ step: 2, note: expect.stringContaining("changed after step 1") }),
    ]);

    // A chain forged whole (every hash recomputed) with a commit that never was.
    const [first, second] = await chainOf(pointer);
    const forgedCommit = "0123456789abcdef0123456789abcdef01234567";
    const git1 = {
      ...first!.step.git!,
      after: { ...first!.step.git!.after, commit: forgedCommit },
    };
    const forged1 = await store.cas.put(store.cas.builtin("step2"), { ...first!.step, git: git1 });
    const forged2 = await store.cas.put(store.cas.builtin("step2"), {
      ...second!.step,
      prev: forged1,
    });
    const forged = { ...pointer, head: forged2 };
    const source = { cas: store.cas, threads: { get: async () => forged } };
    // The chain itself holds: every hash is what it says.
    expect((await verifyThread(source, thread)).ok).toBe(true);
    const named = await verifyThread(source, thread, { lookUp: { repo }, env: env() });
    expect(named.ok).toBe(false);
    expect(named.problems).toEqual([
      {
        hash: forged1,
        step: 1,
        kind: "git",
        reason: `the commit step 1 recorded after it ran, ${forgedCommit}, is not in the repository ${repo}`,
      },
    ]);
  });
});

describe("a thread's receipt", () => {
  it("names every commit and tree once and each step as evidence, and checks against its history", async () => {
    const { thread } = await runScribe(repo, 2);
    const pointer = await store.threads.get(thread);
    const statement = await receiptStatement(store.cas, pointer);
    expect(statement._type).toBe("https://in-toto.io/Statement/v1");
    expect(statement.subject.map((s) => s.name)).toEqual([
      "git-commit",
      "git-tree",
      "git-tree",
      "git-tree",
    ]);
    expect(statement.predicate.steps).toHaveLength(2);
    expect(statement.predicate.steps[0]).toMatchObject({
      number: 1,
      role: "scribe",
      status: "done",
      agent: { name: "script", version: null },
      git: { diffStat: { files: 1 } },
    });
    expect(await checkReceipt(store, statement)).toMatchObject({ ok: true, differences: [] });

    const tampered = structuredClone(statement);
    tampered.predicate.steps[1]!.git!.after.tree = "f".repeat(40);
    expect(await checkReceipt(store, tampered)).toMatchObject({
      ok: false,
      differences: [expect.stringMatching(/^predicate\.steps\[1\]\.git\.after\.tree: expected/)],
    });
  });

  it("is refused for a thread that never ran in a working tree", async () => {
    const { thread } = await runScribe(temp.home, 1);
    await expect(
      receiptStatement(store.cas, await store.threads.get(thread)),
    ).rejects.toMatchObject({
      code: "RECEIPT_EMPTY",
    });
  });
});
