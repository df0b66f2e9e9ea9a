import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  startPostgres,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const HELLO = join(REPO_ROOT, "examples/hello.yaml");
// Two greetings: the thread's first step, and one more after a resume on the other machine.
const SCENARIO = join(REPO_ROOT, "packages/cli/e2e/fixtures/hello-twice.yaml");
const MOCK = `uwf-mock --scenario ${SCENARIO}`;

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
  (home: string, env: Record<string, string> = {}) =>
  (...args: string[]) =>
    runUwf(args, { home, env });

/** A completed hello thread in `home`, exported to a bundle file there. */
async function exported(
  uwf: ReturnType<typeof inHome>,
  home: string,
): Promise<{ thread: string; file: string }> {
  await uwf("workflow", "add", HELLO);
  const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
  expect((await uwf("thread", "exec", thread, "--agent", MOCK)).code).toBe(0);
  const file = join(home, "hello.uwf-bundle");
  const run = await uwf("thread", "export", thread, "-o", file, "--format", "json");
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ file, threads: [thread] });
  return { thread, file };
}

describe("uwf thread export / import", () => {
  it("moves a thread to another store, where it reads and verifies the same", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, file } = await exported(from, source.home);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const imported = await to("thread", "import", file, "--format", "json");
    expect(imported.code, imported.stderr).toBe(0);
    const doc = JSON.parse(imported.stdout);
    expect(doc.threads).toEqual([
      expect.objectContaining({ thread, steps: 1, status: "imported" }),
    ]);
    expect(doc.nodesWritten).toBeGreaterThan(0);

    const read = async (uwf: ReturnType<typeof inHome>) =>
      (await uwf("thread", "read", thread)).stdout;
    expect(await read(to)).toBe(await read(from));
    expect((await to("thread", "verify", thread)).code).toBe(0);
    // The other machine can go on from it: resume the completed thread.
    expect((await to("thread", "resume", thread, "--agent", MOCK)).code).toBe(0);
  });

  it("imports twice harmlessly, and never rolls back a thread that went on here", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, file } = await exported(from, source.home);
    expect((await to("thread", "import", file)).code).toBe(0);
    const elsewhere = join(target.home, "elsewhere");
    mkdirSync(elsewhere);
    const twice = await to("thread", "import", file, "--cwd", elsewhere);
    expect(twice.code).toBe(0);
    expect(twice.stdout).toContain(`${thread}: already here, unchanged`);
    // The thread keeps its place: the --cwd is said not to be taken.
    const { cwd } = JSON.parse((await to("thread", "show", thread, "--format", "json")).stdout);
    expect(cwd).not.toBe(elsewhere);
    expect(twice.stdout).toContain(
      `  --cwd not used: the thread was already here, and runs in ${cwd} as before`,
    );

    // The copy here moves on; the old bundle must not roll it back.
    expect((await to("thread", "resume", thread, "--agent", MOCK)).code).toBe(0);
    const head = JSON.parse((await to("thread", "show", thread, "--format", "json")).stdout).head;
    const behind = await to("thread", "import", file);
    expect(behind.code, behind.stderr).toBe(0);
    expect(behind.stdout).toContain(
      `${thread}: this store's thread is 1 step ahead of the bundle; nothing to import`,
    );
    expect(JSON.parse((await to("thread", "show", thread, "--format", "json")).stdout).head).toBe(
      head,
    );
  });

  it("fast-forwards a thread the bundle took further, and refuses another history, saying where they part", async () => {
    const from = inHome(source.home);
    const { thread, file: ff1 } = await exported(from, source.home);
    expect((await from("thread", "resume", thread, "--agent", MOCK)).code).toBe(0);
    const ff2 = join(source.home, "ff2.uwf-bundle");
    expect((await from("thread", "export", thread, "-o", ff2)).code).toBe(0);
    const show = async (uwf: ReturnType<typeof inHome>) =>
      JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);

    const to = inHome(target.home);
    expect((await to("thread", "import", ff1)).code).toBe(0);
    const first = (await show(to)).head;
    const forward = await to("thread", "import", ff2);
    expect(forward.code, forward.stderr).toBe(0);
    expect(forward.stdout).toContain(
      `${thread}: fast-forwarded by 1 step (head ${first} → ${(await show(from)).head}, 2 steps)`,
    );
    expect(await show(to)).toMatchObject({ head: (await show(from)).head, steps: 2 });
    expect((await to("thread", "verify", thread)).code).toBe(0);
    const behind = await to("thread", "import", ff1, "--format", "json");
    expect(JSON.parse(behind.stdout).threads[0]).toMatchObject({ status: "ahead", by: 1 });

    // A third store went on from step 1 its own way: the two histories part after it.
    const third = tempHome();
    try {
      const other = inHome(third.home);
      expect((await other("thread", "import", ff1)).code).toBe(0);
      expect((await other("thread", "resume", thread, "--agent", MOCK)).code).toBe(0);
      const ours = (await show(other)).head;
      const refused = await other("thread", "import", ff2);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`thread ${thread} exists here with another history`);
      expect(refused.stderr).toContain(`both have its first step (${first})`);
      expect(refused.stderr).toContain(`this store's has 1 step of its own (head ${ours})`);
      expect(refused.stderr).toContain("nothing was imported");
      expect((await show(other)).head).toBe(ours);
    } finally {
      third.cleanup();
    }
  });

  it("never runs the agent a bundle remembers, nor in the bundle's cwd", async () => {
    const from = inHome(source.home);
    await from("workflow", "add", HELLO);
    const thread = (await from("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const file = join(source.home, "fresh.uwf-bundle");
    const exported = await from("thread", "export", thread, "-o", file, "--format", "json");
    const marker = join(target.home, "PWNED");
    const [header, ...nodes] = readFileSync(file, "utf8").split("\n");
    const doc = JSON.parse(header!);
    doc.threads[0].agent = `/bin/sh -c "touch ${marker}"`;
    doc.threads[0].cwd = "/";
    writeFileSync(file, [JSON.stringify(doc), ...nodes].join("\n"));

    const work = join(target.home, "work");
    mkdirSync(work);
    const to = (...args: string[]) => runUwf(args, { home: target.home, cwd: work });
    const imported = await to("thread", "import", file, "--format", "json");
    expect(imported.code, imported.stderr).toBe(0);
    const report = JSON.parse(imported.stdout);
    // Each node once: a thread with no steps has its StartNode for head.
    expect(report.nodes).toBe(JSON.parse(exported.stdout).nodes);
    expect(report.threads[0]).toMatchObject({
      status: "imported",
      cwd: work,
      dropped: { agent: `/bin/sh -c "touch ${marker}"`, cwd: "/" },
    });
    const text = await to("thread", "import", file);
    expect(text.stdout).toContain(`${thread}: already here, unchanged`);
    expect(
      JSON.parse((await to("thread", "show", thread, "--format", "json")).stdout),
    ).toMatchObject({ agent: null, cwd: work });

    // No agent of this store's own is configured: exec says so, and runs nothing.
    const exec = await to("thread", "exec", thread);
    expect(exec.code).toBe(2);
    expect(exec.stderr).toContain("no agent is configured");
    expect(existsSync(marker)).toBe(false);
    expect((await to("thread", "exec", thread, "--agent", MOCK)).code).toBe(0);
    expect(existsSync(marker)).toBe(false);

    // A fork runs where this store runs the thread, not where its StartNode began (elsewhere).
    const head = JSON.parse((await to("thread", "show", thread, "--format", "json")).stdout).head;
    const fork = (await to("step", "fork", head)).stdout.trim();
    const forked = JSON.parse((await to("thread", "show", fork, "--format", "json")).stdout);
    expect(forked.cwd).toBe(work);
  });

  it("refuses a pointer its schema or its chain contradicts, writes nothing, and then takes the sound bundle", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, file } = await exported(from, source.home);
    const text = readFileSync(file, "utf8");
    const edits: [(p: Record<string, unknown>) => void, string][] = [
      [
        (p) => (p.status = "running"),
        '`status` is "running", not idle, suspended, completed or cancelled',
      ],
      [(p) => (p.workflow = "../evil"), 'its pointer names workflow "../evil"'],
      [
        (p) => {
          p.status = "suspended";
          p.suspended = { role: "zzz", reason: "r", kind: "question" };
        },
        'its suspension names role "zzz", which is not in workflow "hello"',
      ],
      // The greeting led to $END: the thread ended, and nothing is left for an exec to run.
      [(p) => (p.status = "idle"), "its pointer says `idle`, but its head step's role"],
      // Fields the pointer check once skipped: each is checked by the pointer's schema.
      [(p) => (p.usage = "lots"), '`usage` is "lots", not an object'],
      [
        (p) => (p.worktree = { path: 3, branch: "b", repo: "/r", base: "abc" }),
        "`worktree.path` is 3, not a string",
      ],
      [(p) => (p.agent = ["sh", "-c", "x"]), "`agent` is an array, not a string"],
    ];
    const bad = join(target.home, "bad.uwf-bundle");
    for (const [edit, words] of edits) {
      const [header, ...nodes] = text.split("\n");
      const doc = JSON.parse(header!);
      edit(doc.threads[0]);
      writeFileSync(bad, [JSON.stringify(doc), ...nodes].join("\n"));
      const run = await to("thread", "import", bad);
      expect(run.code, words).toBe(1);
      expect(run.stderr).toContain(`thread ${thread} in the bundle: `);
      expect(run.stderr).toContain(words);
      expect(run.stderr).toContain("nothing was imported");
      const list = JSON.parse((await to("thread", "list", "--format", "json")).stdout);
      expect(list.total).toBe(0);
    }
    const good = await to("thread", "import", file);
    expect(good.code, good.stderr).toBe(0);
    expect((await to("thread", "verify", thread)).code).toBe(0);
  });

  it("refuses an altered bundle and writes nothing: a flipped byte, a dropped node, a foreign line", async () => {
    const from = inHome(source.home);
    const to = inHome(target.home);
    const { thread, file } = await exported(from, source.home);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const nothingHere = async () => {
      expect((await to("thread", "show", thread)).code).toBe(1);
      expect((await to("cas", "verify", "--format", "json")).stdout).toContain('"checked": 0');
    };

    // A flipped byte in a node line: its bytes no longer hash to its name.
    const flipped = lines.map((line, i) => (i === 2 ? line.replace(/"(\w)/, '"X') : line));
    writeFileSync(file, `${flipped.join("\n")}\n`);
    let run = await to("thread", "import", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("line 3 of the bundle claims node");
    expect(run.stderr).toContain("nothing was imported");
    await nothingHere();

    // A node left out: the thread no longer verifies against the bundle alone.
    const stepLine = lines.findIndex((line, i) => i > 0 && line.includes('"prev"'));
    writeFileSync(file, `${lines.filter((_, i) => i !== stepLine).join("\n")}\n`);
    run = await to("thread", "import", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`thread ${thread} in the bundle does not verify`);
    expect(run.stderr).toContain("is not stored");
    await nothingHere();

    // Not a bundle at all.
    writeFileSync(file, "hello\n");
    run = await to("thread", "import", file, "--format", "json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stderr).error.code).toBe("BUNDLE_INVALID");
  });

  it("exports a thread with its forks, and refuses to overwrite a file without --force", async () => {
    const from = inHome(source.home);
    const { thread, file } = await exported(from, source.home);
    const head = JSON.parse((await from("thread", "show", thread, "--format", "json")).stdout).head;
    const fork = (await from("step", "fork", head)).stdout.trim();
    expect((await from("thread", "export", thread, "-o", file)).code).toBe(2);
    const both = await from("thread", "export", thread, "-o", file, "--forks", "--force");
    expect(both.code, both.stderr).toBe(0);
    const to = inHome(target.home);
    const doc = JSON.parse((await to("thread", "import", file, "--format", "json")).stdout);
    expect(doc.threads.map((t: { thread: string }) => t.thread).sort()).toEqual(
      [thread, fork].sort(),
    );
  });
});

describe("uwf thread export / import between the filesystem and PostgreSQL", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("carries a thread from the filesystem into PostgreSQL and back", async () => {
    const from = inHome(source.home);
    const { thread, file } = await exported(from, source.home);
    const pg = inHome(target.home, { UWF_STORE: await server.createDatabase() });
    const imported = await pg("thread", "import", file);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await pg("thread", "verify", thread)).code).toBe(0);
    expect((await pg("thread", "read", thread)).stdout).toBe(
      (await from("thread", "read", thread)).stdout,
    );

    const back = join(target.home, "back.uwf-bundle");
    expect((await pg("thread", "export", thread, "-o", back)).code).toBe(0);
    const third = tempHome();
    try {
      const fs = inHome(third.home);
      expect((await fs("thread", "import", back)).code).toBe(0);
      expect((await fs("thread", "verify", thread)).code).toBe(0);
    } finally {
      third.cleanup();
    }
  });
});
