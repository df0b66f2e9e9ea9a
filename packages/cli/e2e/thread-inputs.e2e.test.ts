import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const TRIAGE = join(REPO_ROOT, "examples/triage.yaml");
const TRIAGE_SCENARIO = join(REPO_ROOT, "examples/scenarios/triage.yaml");
const HELLO = join(REPO_ROOT, "examples/hello.yaml");
const mockAgent = (scenario: string) =>
  `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;

let temp: TempHome;
let home: string;
const uwf = (...args: string[]) => runUwf(args, { home, cwd: temp.home });
const json = async (...args: string[]) => {
  const run = await uwf(...args, "--format", "json");
  expect(run.stderr).not.toMatch(/^error/m);
  return JSON.parse(run.stdout);
};

beforeEach(() => {
  temp = tempHome();
  home = join(temp.home, "uwf-home");
});
afterEach(() => temp.cleanup());

/** Every file under the CAS: a refused start must not have written one. */
function casFiles(): string[] {
  const cas = join(home, "cas");
  if (!existsSync(cas)) return [];
  return readdirSync(cas, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".json"));
}

describe("thread start with typed inputs (examples/triage.yaml)", () => {
  it("coerces --input values, stores them, and every edge prompt and the agent's task read them", async () => {
    const start = await json(
      "thread",
      "start",
      TRIAGE,
      "-p",
      "Triage this issue",
      "--input",
      "issue=42",
      "--input",
      "title=Crash on save",
      "--input",
      "urgent=true",
      "--input",
      'labels=["bug","storage"]',
    );
    const thread = start.thread as string;
    const show = await json("thread", "show", thread);
    expect(show.inputs).toEqual({
      issue: 42,
      title: "Crash on save",
      urgent: true,
      labels: ["bug", "storage"],
    });
    const text = (await uwf("thread", "show", thread)).stdout;
    expect(text).toContain("inputs    issue = 42");
    expect(text).toContain('          title = "Crash on save"');

    const exec = await json(
      "thread",
      "exec",
      thread,
      "-c",
      "3",
      "--agent",
      mockAgent(TRIAGE_SCENARIO),
    );
    expect(exec).toMatchObject({ status: "completed" });

    const steps = (await json("step", "list", thread)).steps as { hash: string; role: string }[];
    expect(steps.map((s) => s.role)).toEqual(["triager", "responder"]);
    const first = await json("step", "show", steps[0]!.hash);
    expect(first.edgePrompt).toBe(
      'Triage issue #42 "Crash on save" (labels: bug storage). The reporter marked it urgent.',
    );
    const second = await json("step", "show", steps[1]!.hash);
    expect(second.edgePrompt).toBe("Draft the reply to issue #42: high severity, area storage.");
    // The agent's prompt as stored: the inputs under ## Task, the rendered edge prompt last.
    const prompt = (await uwf("step", "read", steps[0]!.hash, "--prompt")).stdout;
    expect(prompt).toContain("## Task\n\nTriage this issue\n\n### Inputs\n\n```yaml\nissue: 42\n");
    expect(prompt).toContain('## Moderator Instruction\n\nTriage issue #42 "Crash on save"');
    // The transcript shows them too.
    expect((await uwf("thread", "read", thread)).stdout).toContain("### Inputs");
    // The second editions of the workflow and start nodes verify like the first.
    const verify = await uwf("thread", "verify", thread, "--format", "json");
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true });
  });

  it("reads an --inputs file, each --input overriding it", async () => {
    const file = join(temp.home, "issue.yaml");
    writeFileSync(file, "issue: 7\ntitle: From the file\nurgent: false\n");
    const start = await json(
      "thread",
      "start",
      TRIAGE,
      "-p",
      "Triage",
      "--inputs",
      "issue.yaml",
      "--input",
      "issue=8",
    );
    const show = await json("thread", "show", start.thread);
    expect(show.inputs).toEqual({ issue: 8, title: "From the file", urgent: false });
    const exec = await json(
      "thread",
      "exec",
      start.thread,
      "-c",
      "1",
      "--agent",
      mockAgent(TRIAGE_SCENARIO),
    );
    expect(exec.steps[0].role).toBe("triager");
    const step = await json("step", "show", exec.steps[0].hash);
    expect(step.edgePrompt).toBe('Triage issue #8 "From the file".');
  });

  it("refuses bad, missing and unknown inputs before anything is written, exit 2", async () => {
    const bad = await uwf(
      "thread",
      "start",
      TRIAGE,
      "-p",
      "Triage",
      "--input",
      "issue=forty",
      "--input",
      "urgent=maybe",
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'error: invalid inputs for workflow "triage": --input issue=forty: expected an integer, got "forty"; --input urgent=maybe: expected true or false, got "maybe"',
    );
    expect(bad.stderr).toContain("Nothing was started.");

    const missing = await uwf(
      "thread",
      "start",
      TRIAGE,
      "-p",
      "Triage",
      "--input",
      "issue=0",
      "--input",
      "colour=red",
      "--format",
      "json",
    );
    expect(missing.code).toBe(2);
    const { error } = JSON.parse(missing.stderr);
    expect(error.code).toBe("INPUT_INVALID");
    expect(error.message).toContain('missing required input "title"');
    expect(error.message).toContain('unknown input "colour" (the workflow does not declare it)');
    expect(error.message).toContain('input "issue": must be >= 1');

    writeFileSync(join(temp.home, "list.yaml"), "- 1\n- 2\n");
    const notMapping = await uwf(
      "thread",
      "start",
      TRIAGE,
      "-p",
      "Triage",
      "--inputs",
      "list.yaml",
    );
    expect(notMapping.code).toBe(2);
    expect(notMapping.stderr).toContain(
      "--inputs list.yaml: must hold a mapping of input name to value, found a list",
    );

    const none = await uwf("thread", "start", HELLO, "-p", "Hi", "--input", "who=Ada");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('error: workflow "hello" declares no inputs');

    expect(casFiles()).toEqual([]);
    expect((await json("thread", "list")).total).toBe(0);
  });

  it("workflow show lists the declared inputs", async () => {
    const text = (await uwf("workflow", "show", TRIAGE)).stdout;
    expect(text).toContain("inputs:\n  issue: integer, required — The issue number.\n");
    const doc = await json("workflow", "show", TRIAGE);
    expect(doc.inputs).toMatchObject({ required: ["issue", "title"] });
    expect((await json("workflow", "show", HELLO)).inputs).toBeNull();
  });

  it("workflow validate reports a malformed inputs schema and inputs templates cannot find", async () => {
    const file = join(temp.home, "broken.yaml");
    writeFileSync(
      file,
      `name: broken
inputs:
  type: object
  properties:
    issue: { type: int }
  required: [issue, title]
roles:
  a:
    frontmatter:
      type: object
      properties: { $status: { const: done } }
      required: [$status]
graph:
  $START:
    new: { role: a, prompt: "Go {{{inputs.issue}}}" }
    resume: { role: a, prompt: "Again" }
  a:
    done: { role: $END, prompt: "Done with {{{inputs.isue}}}" }
`,
    );
    const run = await uwf("workflow", "validate", file);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(
      '  - broken.yaml:5:5: inputs.properties.issue: type "int" is not a JSON Schema type (string, number, integer, boolean, array, object, null)',
    );
    expect(run.stdout).toContain(
      '  - broken.yaml:6:3: inputs.required names "title", which inputs.properties does not declare; declare its type under inputs.properties',
    );
  });
});

describe("pinned definitions", () => {
  it("a thread keeps the included text it started with; workflow add of the edited file is a new hash", async () => {
    const dir = join(temp.home, "wf");
    mkdirSync(join(dir, "shared"), { recursive: true });
    cpSync(TRIAGE, join(dir, "triage.yaml"));
    cpSync(
      join(REPO_ROOT, "examples/shared/triage-rubric.md"),
      join(dir, "shared/triage-rubric.md"),
    );
    const added = await json("workflow", "add", join(dir, "triage.yaml"));

    const start = await json(
      "thread",
      "start",
      join(dir, "triage.yaml"),
      "-p",
      "Triage",
      "--input",
      "issue=1",
      "--input",
      "title=T",
    );
    const before = await json("thread", "show", start.thread);
    expect(before.workflowHash).toBe(added.hash);

    writeFileSync(join(dir, "shared/triage-rubric.md"), "1. Label it and stop.\n");
    const after = await json("thread", "show", start.thread);
    expect(after.workflowHash).toBe(added.hash);
    const exec = await json(
      "thread",
      "exec",
      start.thread,
      "-c",
      "1",
      "--agent",
      mockAgent(TRIAGE_SCENARIO),
    );
    const prompt = (await uwf("step", "read", exec.steps[0].hash, "--prompt")).stdout;
    expect(prompt).toContain("Search for an earlier issue that reports the same problem");
    expect(prompt).not.toContain("Label it and stop");

    const readded = await json("workflow", "add", join(dir, "triage.yaml"));
    expect(readded.hash).not.toBe(added.hash);
    expect(readded).toMatchObject({ changed: true, versions: 2 });
  });

  it("workflow validate warns when a .workflows/ copy shadows the registered workflow", async () => {
    const project = join(temp.home, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    mkdirSync(join(project, ".workflows"));
    cpSync(HELLO, join(project, ".workflows/hello.yaml"));
    const registered = await json("workflow", "add", HELLO);

    const same = await uwf("workflow", "validate", join(project, ".workflows/hello.yaml"));
    expect(same.code).toBe(0);
    expect(same.stdout).toContain(
      `shadows the registered workflow "hello" (same content, ${registered.hash})`,
    );

    writeFileSync(
      join(project, ".workflows/hello.yaml"),
      (await import("node:fs"))
        .readFileSync(HELLO, "utf8")
        .replace("Write the greeting the task asks for.", "Greet."),
    );
    const doc = await json("workflow", "validate", join(project, ".workflows/hello.yaml"));
    expect(doc.warnings).toEqual([
      expect.stringContaining(
        `(${doc.hash}) shadows the registered workflow "hello" (${registered.hash})`,
      ),
    ]);
    // Starting by name in the project uses the copy, and says so.
    const start = await runUwf(["thread", "start", "hello", "-p", "Hi"], { home, cwd: project });
    expect(start.code).toBe(0);
    expect(start.stderr).toContain('shadows the registered workflow "hello"');

    // A file outside .workflows/ shadows nothing.
    expect((await json("workflow", "validate", HELLO)).warnings).toEqual([]);
  });
});
