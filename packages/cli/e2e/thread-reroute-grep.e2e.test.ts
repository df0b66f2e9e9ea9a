import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ThreadGrepDocument, ThreadRerouteDocument } from "@united-workforce/protocol";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Three roles in a row: a → b → c → $END.
const CHAIN = `name: chain
roles:
  a:
    goal: Start it.
    frontmatter:
      type: object
      required: [$status, note]
      properties: { $status: { const: done }, note: { type: string } }
  b:
    goal: Carry on.
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
  c:
    goal: Finish.
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
graph:
  $START:
    new: { role: a, prompt: "Start." }
    resume: { role: a, prompt: "Again." }
  a:
    done: { role: b, prompt: "Go on from {{{note}}}." }
  b:
    done: { role: c, prompt: "Finish it." }
  c:
    done: { role: $END, prompt: "Finished." }
`;

// The next version: "a" must also give a tag, "b" ends the thread, and "c" is gone.
const CHANGED = `name: chain
roles:
  a:
    goal: Start it.
    frontmatter:
      type: object
      required: [$status, note, tag]
      properties: { $status: { const: done }, note: { type: string }, tag: { type: string } }
  b:
    goal: Carry on.
    frontmatter:
      type: object
      required: [$status]
      properties: { $status: { const: done } }
graph:
  $START:
    new: { role: a, prompt: "Start." }
    resume: { role: a, prompt: "Again." }
  a:
    done: { role: b, prompt: "Go on from {{{note}}}." }
  b:
    done: { role: $END, prompt: "Stop here, b is enough." }
`;

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

/** A chain thread run to the end with the mock: a, b, c. */
async function chainThread(note = "first note"): Promise<{ thread: string; steps: string[] }> {
  const file = join(temp.home, "chain.yaml");
  writeFileSync(file, CHAIN);
  const thread = (await uwf("thread", "start", file, "-p", "go")).stdout.trim();
  const scenario = writeScenario(temp.home, [
    { role: "a", output: { $status: "done", note }, body: "Wrote the Opening Paragraph." },
    { role: "b", output: { $status: "done" }, body: "Carried on." },
    { role: "c", output: { $status: "done" }, body: "All finished." },
  ]);
  const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
  const exec = await uwf("thread", "exec", thread, "-c", "3", "--agent", agent);
  expect(exec.code, exec.stderr).toBe(0);
  const list = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout);
  return { thread, steps: list.steps.map((s: { hash: string }) => s.hash) };
}

/** Another version of the chain workflow, in its own folder (the file is named after it). */
function versionFile(folder: string, yaml: string): string {
  mkdirSync(join(temp.home, folder));
  const file = join(temp.home, folder, "chain.yaml");
  writeFileSync(file, yaml);
  return file;
}

function casFiles(): number {
  const cas = join(temp.home, "cas");
  return readdirSync(cas).reduce((n, dir) => n + readdirSync(join(cas, dir)).length, 0);
}

describe("uwf thread reroute", () => {
  it("says the route is the same under the pinned workflow, and exits 0", async () => {
    const { thread } = await chainThread();
    const result = await uwf(
      "thread",
      "reroute",
      thread,
      "--workflow",
      join(temp.home, "chain.yaml"),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("route: the same at every step");
    expect(result.stdout).toContain("outputs: all 3 still validate");
  });

  it("names the first step whose route changes, the new edge prompt and outputs that no longer validate", async () => {
    const { thread, steps } = await chainThread();
    const changed = versionFile("v2", CHANGED);
    const before = casFiles();

    const text = await uwf("thread", "reroute", thread, "-w", changed);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`route changes after step 2 ${steps[1]} (b):`);
    expect(text.stdout).toMatch(
      /recorded: c\n\s+now: +\$END\n\s+prompt: +Stop here, b is enough\./,
    );
    expect(text.stdout).toContain("outputs: 2 of 3 no longer validate:");
    expect(text.stdout).toContain(`step 1 ${steps[0]} (a): /: must have required property 'tag'`);
    expect(text.stdout).toContain(`step 3 ${steps[2]} (c): role "c" is not in workflow "chain"`);

    const json = await uwf("thread", "reroute", thread, "-w", changed, "--format", "json");
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout) as ThreadRerouteDocument;
    expect(doc).toMatchObject({ ok: false, routeChanged: true, invalid: 2 });
    expect(doc.firstChange).toMatchObject({
      step: 2,
      hash: steps[1],
      role: "b",
      next: "c",
      recorded: { target: "c", prompt: "Finish it." },
      rerouted: { target: "$END", prompt: "Stop here, b is enough." },
    });
    expect(doc.steps.map((s) => [s.valid, s.roleExists, s.same])).toEqual([
      [false, true, true],
      [true, true, false],
      [false, false, false],
    ]);
    expect(doc.steps[2]!.rerouted).toMatchObject({
      target: null,
      error: 'no transitions defined for role "c"',
    });
    // A what-if: the other workflow, read from a file, was not stored.
    expect(casFiles()).toBe(before);
    expect((await uwf("workflow", "list", "--format", "json")).stdout).not.toContain(
      doc.workflow.hash,
    );
  });

  it("reports a change at the start when $START.new leads elsewhere", async () => {
    const { thread } = await chainThread();
    const changed = versionFile(
      "v3",
      CHAIN.replace('new: { role: a, prompt: "Start." }', 'new: { role: b, prompt: "Skip a." }'),
    );
    const doc = JSON.parse(
      (await uwf("thread", "reroute", thread, "-w", changed, "--format", "json")).stdout,
    ) as ThreadRerouteDocument;
    expect(doc.firstChange).toMatchObject({
      step: 0,
      role: "$START",
      next: "a",
      recorded: { target: "a" },
      rerouted: { target: "b", prompt: "Skip a." },
    });
  });

  it("requires --workflow and refuses an unknown one", async () => {
    const { thread } = await chainThread();
    expect((await uwf("thread", "reroute", thread)).code).toBe(2);
    const missing = await uwf("thread", "reroute", thread, "-w", "no-such-workflow");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('workflow "no-such-workflow" not found');
  });
});

describe("uwf thread grep", () => {
  it("finds lines in outputs, bodies and prompts, naming thread, step, role and hash", async () => {
    const { thread, steps } = await chainThread("first note");
    const output = await uwf("thread", "grep", "first note");
    expect(output.code, output.stderr).toBe(0);
    expect(output.stdout).toContain(`${thread} step 1 a ${steps[0]} output:2: note: first note`);
    // The edge prompt to b rendered the note, and b's assembled prompt holds it.
    expect(output.stdout).toMatch(
      new RegExp(`${thread} step 2 b ${steps[1]} prompt:\\d+: Go on from first note\\.`),
    );
    const body = await uwf("thread", "grep", "Opening Paragraph", "--in", "bodies");
    expect(body.stdout.trim()).toBe(
      `${thread} step 1 a ${steps[0]} body:1: Wrote the Opening Paragraph.`,
    );
  });

  it("ignores case with -i, takes the pattern literally with -F and searches one thread with --thread", async () => {
    const one = await chainThread("alpha");
    const two = await chainThread("beta");
    const insensitive = await uwf("thread", "grep", "opening paragraph", "-i", "--in", "bodies");
    expect(insensitive.stdout.trim().split("\n")).toHaveLength(2);
    expect((await uwf("thread", "grep", "opening paragraph", "--in", "bodies")).code).toBe(1);

    // Literally, the alternation is text no output holds.
    const fixed = await uwf("thread", "grep", "-F", "note: (alpha|beta)$", "--in", "outputs");
    expect(fixed.code).toBe(1);
    const regex = await uwf("thread", "grep", "note: (alpha|beta)$", "--in", "outputs");
    expect(regex.stdout.trim().split("\n")).toHaveLength(2);

    const filtered = await uwf(
      "thread",
      "grep",
      "note:",
      "--in",
      "outputs",
      "--thread",
      two.thread,
      "--format",
      "json",
    );
    const doc = JSON.parse(filtered.stdout) as ThreadGrepDocument;
    expect(doc.threads).toBe(1);
    expect(doc.matches).toEqual([
      {
        thread: two.thread,
        step: 1,
        hash: two.steps[0],
        role: "a",
        in: "output",
        lines: [{ line: 2, text: "note: beta" }],
      },
    ]);
    expect(doc.matches.some((m) => m.thread === one.thread)).toBe(false);
  });

  it("exits 1 when nothing matches, and 2 on a bad pattern or place", async () => {
    await chainThread();
    const none = await uwf("thread", "grep", "nothing like this");
    expect(none.code).toBe(1);
    expect(none.stdout.trim()).toBe("no match in 3 steps of 1 thread");
    const bad = await uwf("thread", "grep", "(unclosed");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid regular expression "(unclosed"');
    expect((await uwf("thread", "grep", "x", "--in", "detail")).code).toBe(2);
  });

  it("runs a pattern that would backtrack catastrophically in linear time", async () => {
    const file = join(temp.home, "chain.yaml");
    writeFileSync(file, CHAIN);
    const thread = (await uwf("thread", "start", file, "-p", "go")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "a", output: { $status: "done", note: `${"a".repeat(60)}!` } },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    expect((await uwf("thread", "exec", thread, "--agent", agent)).code).toBe(0);
    // On the backtracking engine this pattern would take longer than the universe's age.
    const result = await uwf("thread", "grep", "(a+)+$", "--in", "outputs", "--format", "json");
    const doc = JSON.parse(result.stdout) as ThreadGrepDocument;
    expect(doc).toMatchObject({ linear: true, matches: [] });
    expect(result.code).toBe(1);
  });
});
