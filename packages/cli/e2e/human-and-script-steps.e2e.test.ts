import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import {
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const EXAMPLES = join(REPO_ROOT, "examples");
const FIXTURES = join(import.meta.dirname, "fixtures", "steps");
const mock = (scenario: string) =>
  `${process.execPath} ${UWF_MOCK_BIN} --scenario ${join(EXAMPLES, "scenarios", scenario)}`;

describe("human roles and script steps", () => {
  let temp: TempHome;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });
  const json = async (...args: string[]) => {
    const run = await uwf(...args, "--format", "json");
    return { code: run.code, doc: JSON.parse(run.stdout || "null"), stderr: run.stderr };
  };
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  describe("an approval gate (examples/approval-gate.yaml)", () => {
    const start = async () =>
      (await uwf("thread", "start", join(EXAMPLES, "approval-gate.yaml"), "-p", "Announce 2.0"))
        .stdout;

    it("waits for the human, refuses a bad answer, and routes rejected back to the writer and approved to the end", async () => {
      const thread = (await start()).trim();
      const agent = ["--agent", mock("approval-gate.yaml")];

      const first = await json("thread", "exec", thread, "-c", "5", ...agent);
      expect(first.code).toBe(0);
      expect(first.doc).toMatchObject({ status: "suspended", stoppedBecause: "suspended" });
      expect(first.doc.steps.map((s: { role: string }) => s.role)).toEqual(["writer"]);
      const waiting = (await json("thread", "show", thread)).doc;
      expect(waiting).toMatchObject({ nextRole: "approver" });
      expect(waiting.suspended).toMatchObject({ kind: "human", role: "approver" });
      // The question: the rendered edge prompt, then every answer the schema allows.
      expect(waiting.suspended.reason).toContain("# uwf 2.0 is out");
      expect(waiting.suspended.reason).toContain(
        `uwf thread answer ${thread} --status rejected --set reason=<string>`,
      );

      // Exec and resume do not answer for the human.
      expect((await json("thread", "exec", thread, ...agent)).doc.steps).toEqual([]);
      const resume = await uwf("thread", "resume", thread, "-p", "yes");
      expect(resume.code).toBe(1);
      expect(resume.stderr).toContain(`uwf thread answer ${thread}`);

      // A bad answer is refused with every problem, and nothing is written.
      const bad = await uwf("thread", "answer", thread, "--status", "rejected", "--set", "x=1");
      expect(bad.code).toBe(3);
      expect(bad.stderr).toContain('field "x" is not part of status "rejected"');
      expect(bad.stderr).toContain('status "rejected" needs field "reason"');
      const unknown = await uwf("thread", "answer", thread, "--status", "maybe");
      expect(unknown.code).toBe(3);
      expect(unknown.stderr).toContain('status "maybe" is not one of role "approver"\'s');
      const still = (await json("thread", "show", thread)).doc;
      expect({ head: still.head, steps: still.steps }).toEqual({
        head: waiting.head,
        steps: waiting.steps,
      });

      const rejected = await json(
        "thread",
        "answer",
        thread,
        "--status",
        "rejected",
        "--set",
        "reason=Mention the migration guide.",
        "--by",
        "ada",
        "-m",
        "Almost there.",
      );
      expect(rejected.code).toBe(0);
      expect(rejected.doc).toMatchObject({
        status: "idle",
        step: { role: "approver", status: "rejected", agent: "human" },
      });
      const step = (await json("step", "show", rejected.doc.step.hash)).doc;
      expect(step).toMatchObject({
        agent: "human",
        role: "approver",
        prev: waiting.head,
        outputValue: { $status: "rejected", reason: "Mention the migration guide." },
      });
      expect(step.edgePrompt).toContain("Approve this announcement");
      const detail = (await json("cas", "get", step.detail)).doc.payload;
      expect(detail).toMatchObject({ adapter: "human", answeredBy: "ada" });
      expect((await json("cas", "get", step.body)).doc.payload).toBe("Almost there.");

      // The writer revises, and the approver is asked again.
      const second = await json("thread", "exec", thread, "-c", "5");
      expect(second.doc.steps.map((s: { role: string }) => s.role)).toEqual(["writer"]);
      expect(second.doc.status).toBe("suspended");

      const answerFile = join(temp.home, "answer.yaml");
      writeFileSync(answerFile, "$status: approved\nnote: Ship it.\n");
      const approved = await json("thread", "answer", thread, "-f", answerFile);
      expect(approved.doc).toMatchObject({
        status: "completed",
        step: { role: "approver", status: "approved", agent: "human" },
        // The `$END` edge's message, as exec gives it.
        message: "Approved.",
      });
      const steps = (await json("step", "list", thread)).doc.steps;
      expect(steps.map((s: { role: string; status: string }) => `${s.role}→${s.status}`)).toEqual([
        "writer→drafted",
        "approver→rejected",
        "writer→drafted",
        "approver→approved",
      ]);

      // A human's step is not re-run by poke.
      const poke = await uwf("thread", "poke", thread, "-p", "Again");
      expect(poke.code).toBe(1);
      expect(poke.stderr).toContain('role "approver" is answered by a human');

      // Nothing waits any more.
      const again = await uwf("thread", "answer", thread, "--status", "approved");
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`thread ${thread} is not waiting for a human answer`);
    });

    it("refuses an answer to a thread that is not waiting for a human", async () => {
      const thread = (await start()).trim();
      const answer = await json("thread", "answer", thread, "--status", "approved");
      expect(answer.code).toBe(1);
      expect(answer.stderr).toContain("is not waiting for a human answer (it is idle)");
      expect(answer.stderr).toContain(`uwf thread exec ${thread}`);
    });
  });

  describe("a script step", () => {
    let project: string;
    beforeEach(() => {
      project = join(temp.home, "project");
      mkdirSync(join(project, "test"), { recursive: true });
    });

    const test = () => join(project, "test", "flag.test.mjs");
    /** A run-tests thread in a project whose one test fails. */
    const failingRunTests = async () => {
      writeFileSync(
        test(),
        'import test from "node:test";\ntest("verbose", () => { throw new Error("no --verbose flag"); });\n',
      );
      const args = ["-p", "Add --verbose", "--cwd", project];
      return (
        await uwf("thread", "start", join(EXAMPLES, "run-tests.yaml"), ...args)
      ).stdout.trim();
    };

    it("routes on the test runner's exit code (examples/run-tests.yaml): failed back to the developer, then passed", async () => {
      const thread = await failingRunTests();

      const first = await json(
        "thread",
        "exec",
        thread,
        "-c",
        "2",
        "--agent",
        mock("run-tests.yaml"),
      );
      expect(first.code).toBe(0);
      expect(first.doc.steps).toMatchObject([
        { role: "developer", status: "done" },
        { role: "tests", status: "failed", agent: "script" },
      ]);
      const failed = (await json("step", "show", first.doc.steps[1].hash)).doc;
      expect(failed).toMatchObject({ agent: "script", cwd: project });
      // No model ran: a known zero, not an unknown that a cost budget would stop on.
      expect(failed.usage).toMatchObject({ inputTokens: 0, costUsd: 0 });
      const detail = (await json("cas", "get", failed.detail)).doc.payload;
      expect(detail).toMatchObject({ adapter: "script", command: ["node", "--test"], exitCode: 1 });
      expect(detail.stdoutTail).toContain("no --verbose flag");
      // The developer reads why in the step's body.
      expect((await json("cas", "get", failed.body)).doc.payload).toContain("no --verbose flag");

      writeFileSync(test(), 'import test from "node:test";\ntest("verbose", () => {});\n');
      const second = await json("thread", "exec", thread, "-c", "5");
      expect(second.doc).toMatchObject({ status: "completed" });
      expect(second.doc.steps).toMatchObject([
        { role: "developer", status: "done" },
        { role: "tests", status: "passed", agent: "script" },
      ]);
    });

    it("costs nothing under a cost budget: the run goes on after it", async () => {
      const run = await json(
        "thread",
        "exec",
        await failingRunTests(),
        "-c",
        "3",
        "--max-cost",
        "1",
        "--agent",
        mock("run-tests.yaml"),
      );
      expect(run.doc.steps.map((s: { role: string }) => s.role)).toEqual([
        "developer",
        "tests",
        "developer",
      ]);
      expect(run.doc.message).not.toContain("cost is unknown");
    });

    const probe = async (script: string) => {
      writeFileSync(join(project, "probe.mjs"), script);
      const thread = (
        await uwf("thread", "start", join(FIXTURES, "probe.yaml"), "-p", "Probe", "--cwd", project)
      ).stdout.trim();
      return { thread, exec: await json("thread", "exec", thread) };
    };

    it("takes a JSON result from stdout, validated against the role's schema", async () => {
      const { exec } = await probe(
        'console.log(JSON.stringify({ $status: "failed", count: 2 })); process.exit(0);',
      );
      expect(exec.doc).toMatchObject({ status: "completed", steps: [{ status: "failed" }] });
      const step = (await json("step", "show", exec.doc.steps[0].hash)).doc;
      expect(step.outputValue).toEqual({ $status: "failed", count: 2 });
    });

    // DESIGN §14: the bin starts a Node process before it knows the step's program, and a Node
    // script runs in it. What the script sees must not differ from a fresh spawn (its argv, cwd,
    // environment, an ES module as main), and `ps` shows its command line; only /proc's
    // cmdline tells the two apart: a process title, in one piece.
    it.runIf(process.platform === "linux")(
      "runs a Node script in the Node process exec started early, as a fresh spawn would",
      async () => {
        // The role runs `node` from PATH: make it the Node these tests run on.
        const bin = join(temp.home, "bin");
        mkdirSync(bin);
        symlinkSync(process.execPath, join(bin, "node"));
        const path = `${bin}${delimiter}${process.env.PATH}`;
        const seen = async (env: Record<string, string>) => {
          writeFileSync(
            join(project, "probe.mjs"),
            [
              'import { readFileSync } from "node:fs";',
              'const cmdline = readFileSync("/proc/self/cmdline", "utf8").replace(/\\0+$/, "");',
              "console.log(JSON.stringify({",
              '  warm: !cmdline.includes("\\0"), ps: cmdline.replaceAll("\\0", " "),',
              "  argv: process.argv.slice(1), cwd: process.cwd(), main: import.meta.filename,",
              "  task: process.env.UWF_TASK, role: process.env.UWF_ROLE,",
              "  stray: process.env.UWF_WARM_START ?? null,",
              "}));",
              'console.log(JSON.stringify({ $status: "passed", count: 1 }));',
            ].join("\n"),
          );
          const thread = (
            await uwf(
              "thread",
              "start",
              join(FIXTURES, "probe.yaml"),
              "-p",
              "Probe",
              "--cwd",
              project,
            )
          ).stdout.trim();
          const run = await runUwf(["thread", "exec", thread, "--format", "json"], {
            home: temp.home,
            env: { PATH: path, ...env },
          });
          expect(run.code, run.stderr).toBe(0);
          expect(run.stderr).not.toContain("DeprecationWarning");
          const step = (await json("step", "show", JSON.parse(run.stdout).steps[0].hash)).doc;
          const detail = (await json("cas", "get", step.detail)).doc.payload;
          return JSON.parse(detail.stdoutTail.split("\n")[0]);
        };
        const script = join(project, "probe.mjs");
        const expected = {
          argv: [script],
          cwd: project,
          main: script,
          task: "Probe",
          role: "probe",
        };
        expect(await seen({})).toEqual({
          ...expected,
          warm: true,
          ps: `node ${script}`,
          stray: null,
        });
        expect(await seen({ UWF_WARM_START: "0" })).toEqual({
          ...expected,
          warm: false,
          ps: `${join(bin, "node")} probe.mjs`,
          stray: "0",
        });
        // Under --pending-deprecation, the bindings the bin spawns the warm process with would
        // print a warning: uwf spawns the step's Node as usual instead.
        expect(await seen({ NODE_PENDING_DEPRECATION: "1" })).toEqual({
          ...expected,
          warm: false,
          ps: `${join(bin, "node")} probe.mjs`,
          stray: null,
        });

        // A run of two steps starts the second step's Node while the first step runs.
        const thread = (
          await uwf(
            "thread",
            "start",
            join(FIXTURES, "probe-twice.yaml"),
            "-p",
            "Probe",
            "--cwd",
            project,
          )
        ).stdout.trim();
        const run = await runUwf(["thread", "exec", thread, "-c", "2", "--format", "json"], {
          home: temp.home,
          env: { PATH: path },
        });
        expect(run.code, run.stderr).toBe(0);
        const steps: { hash: string }[] = JSON.parse(run.stdout).steps;
        const seenBy = [];
        for (const { hash } of steps) {
          const step = (await json("step", "show", hash)).doc;
          const detail = (await json("cas", "get", step.detail)).doc.payload;
          seenBy.push(JSON.parse(detail.stdoutTail.split("\n")[0]));
        }
        expect(seenBy.map(({ warm, role }) => ({ warm, role }))).toEqual([
          { warm: true, role: "first" },
          { warm: true, role: "second" },
        ]);
      },
    );

    it("maps the exit code to $status when stdout is not a result", async () => {
      const { exec } = await probe('console.log("3 problems"); process.exit(3);');
      expect(exec.doc.steps).toMatchObject([{ role: "probe", status: "failed" }]);
    });

    it("suspends with a failure when the result does not fit the schema or the exit code is not mapped", async () => {
      const bad = await probe('console.log(JSON.stringify({ $status: "passed", count: "two" }));');
      expect(bad.exec.code).toBe(4);
      expect(bad.exec.doc).toMatchObject({
        status: "suspended",
        stoppedBecause: "failed",
        steps: [],
      });
      expect(bad.exec.doc.message).toContain("fails its schema: /count: must be integer");
      rmSync(join(project, "probe.mjs"));

      const unmapped = await probe('console.error("crashed"); process.exit(7);');
      expect(unmapped.exec.code).toBe(4);
      expect(unmapped.exec.doc.message).toContain('exited with code 7 and gave no "$status"');
      expect(unmapped.exec.doc.message).toContain("crashed");
      const show = (await json("thread", "show", unmapped.thread)).doc;
      expect(show).toMatchObject({ steps: 0, suspended: { kind: "failure", role: "probe" } });
    });

    it("runs a command line through /bin/sh only when the role says shell: true", async () => {
      const thread = (
        await uwf("thread", "start", join(FIXTURES, "shell.yaml"), "-p", "Check", "--cwd", project)
      ).stdout.trim();
      const exec = await json("thread", "exec", thread);
      expect(exec.doc).toMatchObject({ status: "completed", steps: [{ status: "passed" }] });
      const step = (await json("step", "show", exec.doc.steps[0].hash)).doc;
      const detail = (await json("cas", "get", step.detail)).doc.payload;
      expect(detail).toMatchObject({ shell: true, command: ["/bin/sh", "-c", expect.any(String)] });
    });

    it("stops a command that outlives its timeout and suspends the thread", async () => {
      const thread = (
        await uwf("thread", "start", join(FIXTURES, "hang.yaml"), "-p", "Wait", "--cwd", project)
      ).stdout.trim();
      const exec = await json("thread", "exec", thread);
      expect(exec.code).toBe(4);
      expect(exec.doc.message).toContain(
        'command of role "wait" timed out after 1 s and was stopped',
      );
      expect(exec.doc.message).toContain("waiting");
      expect((await json("thread", "show", thread)).doc).toMatchObject({
        status: "suspended",
        steps: 0,
        suspended: { kind: "failure" },
      });
    });
  });
});
