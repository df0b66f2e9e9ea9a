import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepPayload, ThreadVerifyDocument } from "@united-workforce/protocol";
import { openStore } from "@united-workforce/store";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// Two roles in a row, so that a step can be routed wrongly: a → b → $END.
const RELAY = `name: relay
roles:
  a:
    goal: Pass it on.
    frontmatter:
      type: object
      required: [$status, note]
      properties: { $status: { const: done }, note: { type: string } }
  b:
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
    done: { role: $END, prompt: "Finished." }
`;

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

// Threads start in the temp folder: outside a git working tree, steps keep the first edition
// these tests forge steps with.
const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });

/** A relay thread run to the end: two steps, a then b. */
async function relayThread(): Promise<{ thread: string; steps: string[] }> {
  writeFileSync(join(temp.home, "relay.yaml"), RELAY);
  expect((await uwf("workflow", "add", join(temp.home, "relay.yaml"))).code).toBe(0);
  const thread = (await uwf("thread", "start", "relay", "-p", "go")).stdout.trim();
  const scenario = writeScenario(temp.home, [
    { role: "a", output: { $status: "done", note: "n1" } },
    { role: "b", output: { $status: "done" } },
  ]);
  const exec = await uwf(
    "thread",
    "exec",
    thread,
    "-c",
    "2",
    "--agent",
    `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
  );
  expect(exec.code, exec.stderr).toBe(0);
  const list = JSON.parse((await uwf("step", "list", thread, "--format", "json")).stdout);
  return { thread, steps: list.steps.map((s: { hash: string }) => s.hash) };
}

async function verify(
  ...args: string[]
): Promise<{ code: number | null; doc: ThreadVerifyDocument }> {
  const run = await uwf("thread", "verify", ...args, "--format", "json");
  return { code: run.code, doc: JSON.parse(run.stdout) };
}

const nodeFile = (hash: string) => join(temp.home, "cas", hash.slice(0, 2), `${hash}.json`);

/** Point the thread's head at `head` (as a tampering hand would, editing the pointer file). */
function moveHead(thread: string, head: string): void {
  const file = join(temp.home, "threads", `${thread}.json`);
  const pointer = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, JSON.stringify({ ...pointer, head }));
}

describe("uwf thread verify", () => {
  it("proves an untouched thread: every step and node checked, exit 0", async () => {
    const { thread } = await relayThread();
    const { code, doc } = await verify(thread);
    expect(code).toBe(0);
    expect(doc.ok).toBe(true);
    expect(doc.threads[0]).toMatchObject({ thread, ok: true, steps: 2, problems: [] });
    // Start, workflow, two steps with output, body, detail, prompt, and their schemas.
    expect(doc.threads[0]!.nodes).toBeGreaterThan(10);
    const text = await uwf("thread", "verify", thread);
    expect(text.stdout).toContain(`${thread}: ok (2 steps`);
  });

  it("proves a thread whose agent asked a human, before and after the resume", async () => {
    writeFileSync(join(temp.home, "relay.yaml"), RELAY);
    expect((await uwf("workflow", "add", join(temp.home, "relay.yaml"))).code).toBe(0);
    const thread = (await uwf("thread", "start", "relay", "-p", "go")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "a", output: { $status: "$SUSPEND", reason: "Which note?" } },
      { role: "a", output: { $status: "done", note: "n1" } },
      { role: "b", output: { $status: "done" } },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    expect((await uwf("thread", "exec", thread, "--agent", agent)).code).toBe(0);
    let { code, doc } = await verify(thread);
    expect(doc.threads[0]!.problems).toEqual([]);
    expect(code).toBe(0);

    const answer = ["-p", "The first one."];
    const resumed = await uwf("thread", "resume", thread, ...answer, "-c", "2", "--agent", agent);
    expect(resumed.code, resumed.stderr).toBe(0);
    ({ code, doc } = await verify(thread));
    expect(doc.threads[0]).toMatchObject({ ok: true, steps: 3, problems: [] });
    expect(code).toBe(0);
  });

  it("refuses an output typed by another role's schema", async () => {
    const { thread, steps } = await relayThread();
    const store = await openStore({ home: temp.home });
    const first = await store.cas.getPayload<StepPayload>(steps[0]!, "step");
    const second = await store.cas.getPayload<StepPayload>(steps[1]!, "step");
    // b's step, but with a's output: a "done" with a note, typed by a's schema.
    const swapped = await store.cas.put(store.cas.builtin("step"), {
      ...second,
      output: first.output,
    });
    moveHead(thread, swapped);
    const { code, doc } = await verify(thread);
    await store.close();
    expect(code).toBe(1);
    expect(doc.threads[0]!.problems[0]).toMatchObject({
      hash: first.output,
      step: 2,
      kind: "link",
    });
    expect(doc.threads[0]!.problems[0]!.reason).toContain(`(role "b"'s frontmatter schema)`);
  });

  it("names a flipped byte in a step's output as corrupt, at its step", async () => {
    const { thread, steps } = await relayThread();
    const store = await openStore({ home: temp.home });
    const first = await store.cas.getPayload<StepPayload>(steps[0]!, "step");
    const file = nodeFile(first.output);
    writeFileSync(file, readFileSync(file, "utf8").replace("n1", "n2"));
    const { code, doc } = await verify(thread);
    expect(code).toBe(1);
    expect(doc.ok).toBe(false);
    expect(doc.threads[0]!.problems[0]).toMatchObject({
      hash: first.output,
      step: 1,
      kind: "corrupt",
    });
    expect(doc.threads[0]!.problems[0]!.reason).toContain("does not match its name");
    const text = await uwf("thread", "verify", thread);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`first bad node: step 1 ${first.output} (corrupt)`);
  });

  it("catches a thread marked completed whose head leads to another role", async () => {
    const { thread, steps } = await relayThread();
    // Back to a's step (which leads to b), one step, still "completed": b would never run.
    const file = join(temp.home, "threads", `${thread}.json`);
    const pointer = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...pointer, head: steps[0], steps: 1, currentRole: "a" }));
    const { code, doc } = await verify(thread);
    expect(code).toBe(1);
    expect(doc.threads[0]!.problems).toEqual([
      {
        hash: steps[0],
        step: 1,
        kind: "route",
        reason:
          'the thread says "completed", but "a" answered "done", which leads to "b", not to $END',
      },
    ]);
  });

  it("catches a node swapped for another one's file", async () => {
    const { thread, steps } = await relayThread();
    writeFileSync(nodeFile(steps[0]!), readFileSync(nodeFile(steps[1]!)));
    const { code, doc } = await verify(thread);
    expect(code).toBe(1);
    expect(doc.threads[0]!.problems[0]).toMatchObject({ hash: steps[0], kind: "corrupt" });
  });

  it("catches a forged step: wrong route, invalid output, a link to another thread", async () => {
    const { thread, steps } = await relayThread();
    const store = await openStore({ home: temp.home });
    const first = await store.cas.getPayload<StepPayload>(steps[0]!, "step");
    const second = await store.cas.getPayload<StepPayload>(steps[1]!, "step");

    // A well-formed step that claims role "a" ran again after a's "done" (which leads to b).
    const reroute = await store.cas.put(store.cas.builtin("step"), {
      ...second,
      role: "a",
      output: first.output,
    });
    moveHead(thread, reroute);
    let { code, doc } = await verify(thread);
    expect(code).toBe(1);
    expect(doc.threads[0]!.problems).toEqual([
      expect.objectContaining({ hash: reroute, step: 2, kind: "route" }),
    ]);
    expect(doc.threads[0]!.problems[0]!.reason).toContain(
      'role "a" ran, but "a" answered "done", which leads to "b"',
    );

    // An output stored without validation (as `cas put` never would) that its schema refuses.
    const roleSchema = (await store.cas.get(second.output)).type;
    const { hash: badOutput } = await store.cas.putNode({ type: roleSchema, payload: {} });
    const invalid = await store.cas.put(store.cas.builtin("step"), {
      ...second,
      output: badOutput,
    });
    moveHead(thread, invalid);
    ({ code, doc } = await verify(thread));
    expect(code).toBe(1);
    expect(doc.threads[0]!.problems[0]).toMatchObject({
      hash: badOutput,
      step: 2,
      kind: "invalid",
    });

    // A step whose start is another thread's StartNode.
    const other = (await uwf("thread", "start", "relay", "-p", "other")).stdout.trim();
    const otherStart = (await store.threads.get(other)).start;
    const forged = await store.cas.put(store.cas.builtin("step"), { ...second, start: otherStart });
    moveHead(thread, forged);
    ({ code, doc } = await verify(thread));
    expect(code).toBe(1);
    expect(doc.threads[0]!.problems[0]).toMatchObject({ hash: forged, step: 2, kind: "link" });
    await store.close();
  });

  it("--all checks every thread and fails if one fails; a thread and --all together is refused", async () => {
    const { thread, steps } = await relayThread();
    const fresh = (await uwf("thread", "start", "relay", "-p", "fresh")).stdout.trim();
    let { code, doc } = await verify("--all");
    expect(code).toBe(0);
    expect(doc.threads.map((t) => t.thread).sort()).toEqual([thread, fresh].sort());

    writeFileSync(nodeFile(steps[1]!), "{}");
    ({ code, doc } = await verify("--all"));
    expect(code).toBe(1);
    expect(doc.threads.find((t) => t.thread === fresh)?.ok).toBe(true);
    expect(doc.threads.find((t) => t.thread === thread)?.ok).toBe(false);
    // The text form prints a line a thread as it goes, and still fails the run.
    const text = await uwf("thread", "verify", "--all");
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`${fresh}: ok (`);
    expect(text.stdout).toContain(`${thread}: FAILED (`);

    const both = await uwf("thread", "verify", thread, "--all");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("name one thread, or pass --all");
  });
});
