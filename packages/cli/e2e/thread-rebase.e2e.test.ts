import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  StartPayload,
  StepPayload,
  ThreadRebaseDocument,
  ThreadShowDocument,
} from "@united-workforce/protocol";
import {
  type PostgresServer,
  runUwf,
  startPostgres,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { http, startDashboard } from "./dashboard-fixture.js";

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
    procedure: Read the note.
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

// Each case runs a dozen uwf processes (and agents) on a shared machine.
const SLOW = 120_000;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

describe.each(["filesystem", "postgres"] as const)("uwf thread rebase (%s store)", (backend) => {
  let env: Record<string, string> = {};
  beforeEach(async () => {
    env = backend === "postgres" ? { UWF_STORE: await server.createDatabase() } : {};
  });

  const uwf = (...args: string[]) => runUwf(args, { home: temp.home, env });
  const json = async <T>(...args: string[]): Promise<T> => {
    const result = await uwf(...args, "--format", "json");
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  /** A chain thread run to the end with the mock; its steps' hashes. */
  async function chainThread(): Promise<{ thread: string; steps: string[] }> {
    const file = join(temp.home, "chain.yaml");
    writeFileSync(file, CHAIN);
    const thread = (await uwf("thread", "start", file, "-p", "go")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "a", output: { $status: "done", note: "first note" }, body: "Opened." },
      { role: "b", output: { $status: "done" }, body: "Carried on." },
      { role: "c", output: { $status: "done" }, body: "All finished." },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    const exec = await uwf("thread", "exec", thread, "-c", "3", "--agent", agent);
    expect(exec.code, exec.stderr).toBe(0);
    const list = await json<{ steps: { hash: string }[] }>("step", "list", thread);
    return { thread, steps: list.steps.map((s) => s.hash) };
  }

  /** The chain workflow edited by `edit`, in its own folder (the file is named after it). */
  function edited(folder: string, edit: (yaml: string) => string): string {
    mkdirSync(join(temp.home, folder));
    const file = join(temp.home, folder, "chain.yaml");
    writeFileSync(file, edit(CHAIN));
    return file;
  }

  async function threadCount(): Promise<number> {
    return (await json<{ total: number }>("thread", "list")).total;
  }

  async function stepNode(hash: string): Promise<StepPayload> {
    return (await json<{ payload: StepPayload }>("cas", "get", hash)).payload;
  }

  it(
    "reuses every step of an unchanged workflow and runs nothing",
    async () => {
      const { thread, steps } = await chainThread();
      const doc = await json<ThreadRebaseDocument>(
        "thread",
        "rebase",
        thread,
        "-w",
        join(temp.home, "chain.yaml"),
      );
      expect(doc).toMatchObject({ sameWorkflow: true, firstChange: null, rebased: null });
      expect(doc.reused.map((s) => s.hash)).toEqual(steps);
      expect(doc.run).toBeUndefined();
      expect(await threadCount()).toBe(1);
    },
    SLOW,
  );

  it(
    "forks at the first step of an edited role and runs on from it, reusing the steps before",
    async () => {
      const { thread, steps } = await chainThread();
      const file = edited("v2", (yaml) => yaml.replace("Read the note.", "Read the note twice."));
      const casBefore = backend === "filesystem" ? casFiles(temp.home) : 0;

      const dry = await uwf("thread", "rebase", thread, "-w", file, "--dry-run");
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("(dry run: nothing stored)");
      expect(dry.stdout).toContain("reused: 1 step (step 1 a), no agent runs for them");
      expect(dry.stdout).toContain(`first changed: step 2 ${steps[1]} (b)`);
      expect(dry.stdout).toContain("role b changed: procedure");
      expect(await threadCount()).toBe(1);
      if (backend === "filesystem") expect(casFiles(temp.home)).toBe(casBefore);

      const doc = await json<ThreadRebaseDocument>("thread", "rebase", thread, "-w", file);
      expect(doc.reused.map((s) => s.hash)).toEqual(steps.slice(0, 1));
      expect(doc.firstChange).toMatchObject({
        step: 2,
        hash: steps[1],
        role: "b",
        roleChange: { role: "b", fields: ["procedure"] },
        routeChange: null,
      });
      // Exactly the two steps from the change on ran an agent.
      expect(doc.run?.steps.map((s) => s.role)).toEqual(["b", "c"]);
      expect(doc.run?.status).toBe("completed");
      const rebased = doc.rebased!.thread;

      // The reused step is the recorded step itself, hash kept; the first step that ran links to
      // it under the rebased thread's StartNode, which pins the edited workflow and names it.
      const list = await json<{ steps: { hash: string }[] }>("step", "list", rebased);
      expect(list.steps.map((s) => s.hash).slice(0, 1)).toEqual(steps.slice(0, 1));
      expect(await stepNode(list.steps[1]!.hash)).toMatchObject({
        start: doc.rebased!.start,
        prev: steps[0],
      });
      const start = await json<{ payload: StartPayload }>("cas", "get", doc.rebased!.start);
      expect(start.payload).toMatchObject({
        workflow: doc.workflow.hash,
        rebase: { start: (await stepNode(steps[0]!)).start, at: steps[0] },
      });
      const read = await uwf("thread", "read", rebased, "--start");
      expect(read.code, read.stderr).toBe(0);
      expect(read.stdout).toContain("Opened.");
      const show = await json<ThreadShowDocument>("thread", "show", rebased);
      expect(show).toMatchObject({
        workflowHash: doc.workflow.hash,
        status: "completed",
        steps: 3,
        title: "go (rebased)",
        rebasedFrom: { thread, step: steps[0] },
      });
      // The recorded thread is kept as it was; both verify.
      const kept = await json<ThreadShowDocument>("thread", "show", thread);
      expect(kept).toMatchObject({ head: steps[2], steps: 3, workflowHash: doc.pinned.hash });
      for (const id of [thread, rebased]) expect((await uwf("thread", "verify", id)).code).toBe(0);

      const log = await json<{ events: { event: string }[] }>("log", "show");
      expect(log.events.filter((e) => e.event === "thread.rebased")).toEqual([
        expect.objectContaining({ thread: rebased, from: thread, reused: 1, firstChange: 2 }),
      ]);

      // The web view names where the thread came from, with links to that thread and step.
      const dash = await startDashboard(temp.home, [], env);
      try {
        const cookie = `uwf_dashboard_${dash.port}=${dash.token}`;
        const host = `127.0.0.1:${dash.port}`;
        const page = await http(dash.port, "GET", `/threads/${rebased}`, { host, cookie });
        expect(page.status).toBe(200);
        expect(page.body).toContain("<dt>Rebased from</dt>");
        expect(page.body).toContain(`href="/threads/${thread}/steps/${steps[0]}"`);
        expect(page.body).toContain("go (rebased)");
        // A reused step is a step of the rebased thread too.
        const reused = `/threads/${rebased}/steps/${steps[0]}`;
        expect((await http(dash.port, "GET", reused, { host, cookie })).status).toBe(200);
      } finally {
        await dash.stop();
      }
    },
    SLOW,
  );

  it(
    "forks at the step an edited edge prompt leads into, with a diff of the prompt",
    async () => {
      const { thread, steps } = await chainThread();
      const file = edited("v2", (yaml) => yaml.replace("Finish it.", "Finish it, briefly."));
      const result = await uwf("thread", "rebase", thread, "-w", file, "-c", "1");
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain("reused: 2 steps (steps 1–2), no agent runs for them");
      expect(result.stdout).toContain(`first changed: step 3 ${steps[2]} (c)`);
      expect(result.stdout).toMatch(
        /edge from b changed:\n\s+- Finish it\.\n\s+\+ Finish it, briefly\./,
      );
      const [rebased] = (await json<{ threads: { thread: string }[] }>("thread", "list")).threads;
      const list = await json<{ steps: { role: string; hash: string }[] }>(
        "step",
        "list",
        rebased!.thread,
      );
      expect(list.steps.map((s) => s.role)).toEqual(["a", "b", "c"]);
      // Reused exactly: the first two are the recorded steps, the third ran.
      expect(list.steps.map((s) => s.hash).slice(0, 2)).toEqual(steps.slice(0, 2));
      expect(list.steps[2]!.hash).not.toBe(steps[2]);
      expect((await uwf("thread", "verify", rebased!.thread)).code).toBe(0);
      // The two threads share the first two steps.
      const diff = await json<{ common: string; commonSteps: number }>(
        "thread",
        "diff",
        thread,
        rebased!.thread,
      );
      expect(diff).toMatchObject({ common: steps[1], commonSteps: 2 });
    },
    SLOW,
  );

  it(
    "walks a rebased thread's chain with its two starts: trace, grep, usage, reroute, workflow test",
    async () => {
      const { thread, steps } = await chainThread();
      const file = edited("v2", (yaml) => yaml.replace("Read the note.", "Read the note twice."));
      const doc = await json<ThreadRebaseDocument>("thread", "rebase", thread, "-w", file);
      const rebased = doc.rebased!.thread;

      const traceFile = join(temp.home, "trace.json");
      const trace = await json<{ threads: string[]; spans: number }>(
        "thread",
        "trace",
        rebased,
        "-o",
        traceFile,
      );
      expect(trace.threads).toEqual([rebased]);
      // The run's span and one per step, the shared one included.
      const spans = JSON.parse(readFileSync(traceFile, "utf8")).resourceSpans[0].scopeSpans[0]
        .spans;
      expect(spans.map((span: { name: string }) => span.name)).toEqual([
        "invoke_workflow chain",
        "invoke_agent a",
        "invoke_agent b",
        "invoke_agent c",
      ]);
      const grep = await json<{ matches: { thread: string; hash: string }[] }>(
        "thread",
        "grep",
        "Opened",
        "--thread",
        rebased,
      );
      // The shared first step is found as the rebased thread's.
      expect(grep.matches).toContainEqual(
        expect.objectContaining({ thread: rebased, hash: steps[0] }),
      );
      const usage = await uwf("usage", "--by", "thread", "--format", "json");
      expect(usage.code, usage.stderr).toBe(0);
      expect(usage.stdout).toContain(rebased);
      const reroute = await uwf("thread", "reroute", rebased, "-w", file);
      expect(reroute.code, reroute.stderr).toBe(0);
      const replay = await json<{ ok: boolean; threads: { result: string }[] }>(
        "workflow",
        "test",
        file,
        "--from",
        rebased,
      );
      expect(replay).toMatchObject({ ok: true, threads: [{ result: "same" }] });
    },
    SLOW,
  );

  /** A script role printing `output` (a JS expression) as its frontmatter. */
  function scriptRun(name: string, output: string): string {
    writeFileSync(join(temp.home, name), `console.log(JSON.stringify(${output}));`);
    return `[${JSON.stringify(process.execPath)}, ${JSON.stringify(join(temp.home, name))}]`;
  }

  /** A child workflow of two script roles; `second` is the second one's command. */
  const childWorkflow = (second: string) => `name: child
roles:
  first:
    run: ${scriptRun("first.cjs", `{ $status: "done", task: process.env.UWF_TASK }`)}
    frontmatter: { type: object, required: [$status], properties: { $status: { const: done } } }
  second:
    run: ${second}
    frontmatter: { type: object, required: [$status], properties: { $status: { const: done } } }
graph:
  $START:
    new: { role: first, prompt: "First." }
    resume: { role: first, prompt: "First again." }
  first:
    done: { role: second, prompt: "Second." }
  second:
    done: { role: $END, prompt: "Done." }
`;

  /** A parent that plans two items and fans out into `child.yaml` beside it, then joins. */
  const fanWorkflow = (description: string) => `name: fan
description: ${description}
roles:
  plan:
    run: ${scriptRun("plan.cjs", `{ $status: "ready", items: ["x", "y"] }`)}
    frontmatter:
      type: object
      required: [$status, items]
      properties: { $status: { const: ready }, items: { type: array } }
  collect:
    join: true
    frontmatter:
      type: object
      required: [$status, results]
      properties: { $status: { const: done }, results: { type: array } }
graph:
  $START:
    new: { role: plan, prompt: "Plan." }
    resume: { role: plan, prompt: "Plan again." }
  plan:
    ready:
      role: collect
      prompt: "item {{{item}}}"
      fanout: { over: "{{{items}}}", workflow: ./child.yaml, concurrency: 1 }
  collect:
    done: { role: $END, prompt: "Joined." }
`;

  /** The fan-out thread run to the end: its id, steps and children (id → step hashes). */
  async function fanoutThread() {
    writeFileSync(
      join(temp.home, "child.yaml"),
      childWorkflow(scriptRun("second.cjs", `{ $status: "done" }`)),
    );
    writeFileSync(join(temp.home, "fan.yaml"), fanWorkflow("Fan out."));
    const started = await uwf("thread", "start", join(temp.home, "fan.yaml"), "-p", "fan");
    const thread = started.stdout.trim();
    const exec = await uwf("thread", "exec", thread, "-c", "2");
    expect(exec.code, exec.stderr).toBe(0);
    const children = new Map<string, string[]>();
    for (const { thread: id } of (await json<{ threads: { thread: string }[] }>("thread", "list"))
      .threads) {
      if (id !== thread) children.set(id, await stepHashes(id));
    }
    expect(children.size).toBe(2);
    return { thread, steps: await stepHashes(thread), children };
  }

  async function stepHashes(thread: string): Promise<string[]> {
    const list = await json<{ steps: { hash: string }[] }>("step", "list", thread);
    return list.steps.map((s) => s.hash);
  }

  it(
    "reuses the join of an unchanged fan-out, its children staying the recorded ones",
    async () => {
      const { thread, steps } = await fanoutThread();
      mkdirSync(join(temp.home, "v2"));
      writeFileSync(
        join(temp.home, "v2", "child.yaml"),
        readFileSync(join(temp.home, "child.yaml")),
      );
      writeFileSync(join(temp.home, "v2", "fan.yaml"), fanWorkflow("Fan out, described anew."));
      const doc = await json<ThreadRebaseDocument>(
        "thread",
        "rebase",
        thread,
        "-w",
        join(temp.home, "v2", "fan.yaml"),
      );
      expect(doc.sameWorkflow).toBe(false);
      expect(doc.reused.map((s) => s.hash)).toEqual(steps);
      expect(doc.firstChange).toBeNull();
      expect(doc.rebased?.children).toEqual([]);
      expect(await stepHashes(doc.rebased!.thread)).toEqual(steps);
      const verify = await uwf("thread", "verify", "--all");
      expect(verify.code, verify.stdout).toBe(0);
    },
    SLOW,
  );

  it(
    "rebases a fan-out's children under an edited child workflow, reusing their unchanged steps",
    async () => {
      const { thread, steps, children } = await fanoutThread();
      mkdirSync(join(temp.home, "v2"));
      const edited = scriptRun("second-v2.cjs", `{ $status: "done", edited: true }`);
      writeFileSync(join(temp.home, "v2", "child.yaml"), childWorkflow(edited));
      writeFileSync(join(temp.home, "v2", "fan.yaml"), fanWorkflow("Fan out."));
      const dry = await uwf(
        "thread",
        "rebase",
        thread,
        "-w",
        join(temp.home, "v2", "fan.yaml"),
        "--dry-run",
      );
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("the fan-out's recorded children would be rebased");
      const doc = await json<ThreadRebaseDocument>(
        "thread",
        "rebase",
        thread,
        "-w",
        join(temp.home, "v2", "fan.yaml"),
      );
      // The parent shares its plan step and parts at the join, whose fan-out runs another child
      // workflow; each recorded child is rebased under it, sharing its first step.
      expect(doc.reused.map((s) => s.hash)).toEqual(steps.slice(0, 1));
      expect(doc.firstChange).toMatchObject({ step: 2, role: "collect", roleChange: null });
      const rebasedChildren = doc.rebased!.children;
      expect(rebasedChildren.map((c) => c.from).sort()).toEqual([...children.keys()].sort());
      for (const child of rebasedChildren) {
        expect(child).toMatchObject({ reused: 1, firstChange: 2 });
        const hashes = await stepHashes(child.thread);
        expect(hashes).toHaveLength(2);
        expect(hashes[0]).toBe(children.get(child.from)![0]);
        expect(hashes[1]).not.toBe(children.get(child.from)![1]);
        const show = await json<ThreadShowDocument>("thread", "show", child.thread);
        expect(show).toMatchObject({
          status: "completed",
          parent: { thread: doc.rebased!.thread, step: steps[0], index: expect.any(Number) },
          rebasedFrom: { thread: child.from, step: children.get(child.from)![0] },
        });
      }
      expect(doc.run?.status).toBe("completed");
      // The join is made from the rebased children.
      const { head } = await json<ThreadShowDocument>("thread", "show", doc.rebased!.thread);
      const joined = await json<{ outputValue: { results: { thread: string }[] } }>(
        "step",
        "show",
        head,
      );
      expect(joined.outputValue.results.map((r) => r.thread).sort()).toEqual(
        rebasedChildren.map((c) => c.thread).sort(),
      );
      const verify = await uwf("thread", "verify", "--all");
      expect(verify.code, verify.stdout).toBe(0);

      // Exported with its children into another store, the family imports and verifies.
      const bundle = join(temp.home, "fan.uwf-bundle");
      const exported = await uwf("thread", "export", doc.rebased!.thread, "-o", bundle);
      expect(exported.code, exported.stderr).toBe(0);
      const other = tempHome();
      try {
        const there = (...args: string[]) => runUwf(args, { home: other.home });
        const imported = await there("thread", "import", bundle);
        expect(imported.code, imported.stderr).toBe(0);
        const verified = await there("thread", "verify", "--all");
        expect(verified.code, verified.stdout).toBe(0);
      } finally {
        other.cleanup();
      }
    },
    SLOW,
  );

  it(
    "exports the rebased thread like any other; the import keeps where it came from",
    async () => {
      const { thread, steps } = await chainThread();
      const file = edited("v2", (yaml) => yaml.replace("Go on from", "Now go on from"));
      const doc = await json<ThreadRebaseDocument>("thread", "rebase", thread, "-w", file);
      expect(doc.firstChange).toMatchObject({ step: 2, from: "a" });
      const rebased = doc.rebased!.thread;
      const bundle = join(temp.home, "rebased.uwf-bundle");
      expect((await uwf("thread", "export", rebased, "-o", bundle)).code).toBe(0);

      const other = tempHome();
      try {
        const there = (...args: string[]) => runUwf(args, { home: other.home });
        const imported = await there("thread", "import", bundle);
        expect(imported.code, imported.stderr).toBe(0);
        const show = await there("thread", "show", rebased, "--format", "json");
        expect(JSON.parse(show.stdout)).toMatchObject({
          status: "completed",
          steps: 3,
          rebasedFrom: { thread, step: steps[0] },
        });
        expect((await there("thread", "verify", rebased)).code).toBe(0);
      } finally {
        other.cleanup();
      }
    },
    SLOW,
  );
});

function casFiles(home: string): number {
  const cas = join(home, "cas");
  return readdirSync(cas).reduce((n, dir) => n + readdirSync(join(cas, dir)).length, 0);
}
