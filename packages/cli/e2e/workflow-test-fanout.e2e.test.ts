import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runUwf, type TempHome, tempHome, writeScenario } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeNestedFanout } from "./fixtures/fanout/nested.js";

/**
 * `uwf workflow test` of a recorded two-level fan-out: a script plans two items, each child
 * (workflow `mid`) fans out to one grandchild whose `leaf` agent step uwf-mock answered. The
 * replay makes its own children, uwf-replay answers their agent steps from the recorded ones,
 * and each child is compared with the recorded child of the same item.
 */

interface TestedThread {
  thread: string;
  result: string;
  reason: string;
  parent?: { thread: string; index: number };
  replayThread: string | null;
  recorded: { role: string; status: string }[];
  replayed: { role: string; status: string }[];
}

let temp: TempHome;
let work: string;
let parent: string;
let bundle: string;
const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: work });

beforeAll(async () => {
  temp = tempHome();
  work = join(temp.home, "work");
  const top = writeNestedFanout(work);
  const scenario = writeScenario(temp.home, [
    { role: "leaf", output: { $status: "done", task: "leaf done" } },
  ]);
  parent = (await uwf("thread", "start", top, "-p", "Go")).stdout.trim();
  const run = await uwf(
    "thread",
    "exec",
    parent,
    "-c",
    "3",
    "--agent",
    `uwf-mock --scenario ${scenario}`,
  );
  expect(run.code, run.stderr).toBe(0);
  bundle = join(temp.home, "family.uwf-bundle");
  expect((await uwf("thread", "export", parent, "-o", bundle)).code).toBe(0);
});
afterAll(() => temp.cleanup());

/** `uwf workflow test <top> --from <the recording>` as JSON: its exit code and tested threads. */
async function tested(top: string) {
  const run = await uwf("workflow", "test", top, "--from", bundle, "--format", "json");
  const threads = run.code === 0 || run.code === 1 ? JSON.parse(run.stdout).threads : [];
  return { code: run.code, stderr: run.stderr, threads: threads as TestedThread[] };
}

describe("uwf workflow test of a fan-out", () => {
  it("replays the parent, which makes its own children; each is compared with its recorded twin", async () => {
    const { code, stderr, threads } = await tested(join(work, "top.yaml"));
    expect(code, stderr).toBe(0);
    // The parent, then each child followed by its own child: five threads, one tested alone.
    expect(threads.map((t) => [t.result, t.parent?.index ?? null])).toEqual([
      ["same", null],
      ["same", 0],
      ["same", 0],
      ["same", 1],
      ["same", 0],
    ]);
    expect(threads[0]!.thread).toBe(parent);
    expect(threads[1]!.parent!.thread).toBe(parent);
    expect(threads[2]!.parent!.thread).toBe(threads[1]!.thread);
    expect(new Set(threads.map((t) => t.replayThread)).size).toBe(5);

    const text = await uwf("workflow", "test", join(work, "top.yaml"), "--from", bundle);
    expect(text.stdout).toContain(
      `  ↳ ${threads[1]!.thread} (child 0 of ${parent}, ${bundle}, 1 step): same route (gather → done)`,
    );
    expect(text.stdout).toContain(
      `    ↳ ${threads[2]!.thread} (child 0 of ${threads[1]!.thread}, ${bundle}, 1 step): same route (leaf → done)`,
    );
    expect(text.stdout).toContain("ok: 5 of 5 threads kept the same route under top");
  });

  it("reports a child whose workflow now routes elsewhere (exit 1), its own child still the same", async () => {
    const top = writeNestedFanout(join(temp.home, "edited"), { join: "merge" });
    const { code, threads } = await tested(top);
    expect(code).toBe(1);
    expect(threads.map((t) => t.result)).toEqual([
      "same",
      "different",
      "same",
      "different",
      "same",
    ]);
    expect(threads[1]!.reason).toBe(
      "from the start, the workflow now routes to `merge` (recorded: `gather`)",
    );
    const text = await uwf("workflow", "test", top, "--from", bundle);
    expect(text.stdout).toContain("FAILED: 3 of 5 threads kept the same route under top");
  });

  it("reports each child the replay makes that the recording has no twin for (exit 1)", async () => {
    // The plan now plans a third item: a third child, with nothing recorded to compare it with.
    const top = writeNestedFanout(join(temp.home, "more"), { items: ["a", "b", "c"] });
    const { code, threads } = await tested(top);
    expect(code).toBe(1);
    expect(threads.map((t) => [t.result, t.parent?.index ?? null])).toEqual([
      ["same", null],
      ["same", 0],
      ["same", 0],
      ["same", 1],
      ["same", 0],
      ["different", 2],
      ["different", 0],
    ]);
    const extra = threads[5]!;
    expect(extra).toMatchObject({
      origin: "replay",
      replayThread: extra.thread,
      parent: { thread: parent, index: 2 },
      reason: "the recording has no child for item 2 of this fan-out",
    });
    // The extra child fans out in turn: its own child has no recorded twin either.
    expect(threads[6]).toMatchObject({
      origin: "replay",
      replayThread: threads[6]!.thread,
      parent: { thread: extra.thread, index: 0 },
      reason: `the recording has no twin of its parent ${extra.thread}`,
      replayed: [{ role: "leaf", status: "done" }],
    });
    // Each test run makes new replay threads: the text names another id.
    const text = await uwf("workflow", "test", top, "--from", bundle);
    expect(text.stdout).toMatch(
      new RegExp(
        `\n  ↳ \\w{26} \\(child 2 of ${parent}, replay, 0 steps\\): different route at step 1: the recording has no child for item 2 of this fan-out\n`,
      ),
    );
  });

  it("says why a grandchild's replay stopped, from its own state (exit 1)", async () => {
    // The leaf is now a script that fails: each grandchild stops at its first step.
    const top = writeNestedFanout(join(temp.home, "failing"), {
      leafScript: `console.error("no leaf today"); process.exit(1);`,
    });
    const { code, threads } = await tested(top);
    expect(code).toBe(1);
    const leaves = threads.filter((t) => t.parent !== undefined && t.parent.thread !== parent);
    expect(leaves.map((t) => t.result)).toEqual(["stopped", "stopped"]);
    for (const leaf of leaves) {
      expect(leaf.reason).toMatch(/^the replay stopped before `leaf`: thread is suspended/);
      expect(leaf.reason).toContain("no leaf today");
    }
  });

  it("reports each recorded child its parent's replay no longer makes (exit 1)", async () => {
    // The plan now ends the thread: no fan-out, so no children at all.
    const top = join(temp.home, "no-fanout", "top.yaml");
    writeNestedFanout(join(temp.home, "no-fanout"));
    const text = readFileSync(top, "utf8");
    const fanout = text.slice(text.indexOf("  collect:\n    join: true"), text.indexOf("graph:"));
    const edited = text
      .replace(fanout, "")
      .replace(/ {4}ready:\n[\s\S]*$/, '    ready: { role: $END, prompt: "Planned only." }\n');
    writeFileSync(top, edited);
    expect((await uwf("workflow", "validate", top)).code).toBe(0);
    const { code, threads } = await tested(top);
    expect(code).toBe(1);
    // Each recorded child, then its own recorded child: none was replayed.
    expect(
      threads.map((t) => [t.result, t.replayThread === null, t.parent?.index ?? null]),
    ).toEqual([
      ["different", false, null],
      ["different", true, 0],
      ["different", true, 0],
      ["different", true, 1],
      ["different", true, 0],
    ]);
    expect(threads[1]!.reason).toBe(
      "the replay of its parent made no child for item 0 of this fan-out",
    );
    expect(threads[2]!.parent!.thread).toBe(threads[1]!.thread);
    expect(threads[2]!.reason).toBe(`the replay made no twin of its parent ${threads[1]!.thread}`);
    expect(threads[2]!.recorded).toEqual([{ role: "leaf", status: "done" }]);
    expect(threads[3]!.reason).toBe(
      "the replay of its parent made no child for item 1 of this fan-out",
    );
    expect(threads[4]!.parent!.thread).toBe(threads[3]!.thread);
  });
});
