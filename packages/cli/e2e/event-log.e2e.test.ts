import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type EventName, eventSchemas, isEventName } from "@united-workforce/protocol";
import {
  type MockScenarioStep,
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { Ajv } from "ajv";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const EXAMPLES = join(REPO_ROOT, "examples");

/** An agent, a command and a person, in one thread. */
const CHECKED = `name: checked
description: A writer drafts, a command checks the draft, a person approves it.
roles:
  writer:
    description: Drafts the text.
    goal: Draft it.
    frontmatter:
      type: object
      properties: { $status: { const: drafted }, text: { type: string } }
      required: [$status, text]
  check:
    description: Checks the draft with a command.
    run: [node, -e, "process.stdout.write(JSON.stringify({ $status: 'ok' }))"]
    frontmatter:
      type: object
      properties: { $status: { enum: [ok] } }
      required: [$status]
  approver:
    description: A person approves the draft.
    agent: human
    frontmatter:
      type: object
      properties: { $status: { enum: [approved] } }
      required: [$status]
graph:
  $START:
    new: { role: writer, prompt: "Draft it." }
    resume: { role: writer, prompt: "Draft it again." }
  writer:
    drafted: { role: check, prompt: "Check: {{{text}}}" }
  check:
    ok: { role: approver, prompt: "Approve the checked draft." }
  approver:
    approved: { role: $END, prompt: "Approved." }
`;

/**
 * The process log is the channel between processes: every reader (progress of another process,
 * `thread watch` and `join`, `log show -f`, the web view) reads it. These runs write every kind
 * of event a run writes, and every line must fit its event's schema, checked here by ajv, a
 * validator independent of protocol's own checker.
 */
describe("the process log of full runs", () => {
  let temp: TempHome;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });
  const mock = (steps: MockScenarioStep[], name: string) =>
    `${process.execPath} ${UWF_MOCK_BIN} --scenario ${writeScenario(temp.home, steps, name)}`;
  const start = async (workflow: string, prompt = "Go") => {
    const started = await uwf("thread", "start", workflow, "-p", prompt);
    expect(started.code, started.stderr).toBe(0);
    return started.stdout.trim();
  };

  beforeEach(() => {
    temp = tempHome();
    writeFileSync(join(temp.home, "checked.yaml"), CHECKED);
    writeFileSync(
      join(temp.home, "config.yaml"),
      "retry:\n  maxRetries: 1\n  delaySeconds: 0.05\n  maxDelaySeconds: 0.2\n",
      { mode: 0o600 },
    );
  });
  afterEach(() => temp.cleanup());

  it("holds only events that fit their schemas, of every kind a run writes", async () => {
    const drafted = { role: "writer", output: { $status: "drafted", text: "Hi" } };
    const workflow = join(temp.home, "checked.yaml");
    expect((await uwf("workflow", "add", workflow)).code).toBe(0);

    // An agent (with output lines and a transient failure retried), a command, a person.
    const thread = await start("checked");
    const agent = mock([{ ...drafted, stderr: "drafting", transient: 1 }], "retried.yaml");
    expect((await uwf("thread", "exec", thread, "-c", "5", "--agent", agent)).code).toBe(0);
    expect((await uwf("thread", "answer", thread, "--status", "approved")).code).toBe(0);

    // A failed agent, then the budget of a resumed run.
    const failing = await start("checked");
    const crash = mock([{ role: "writer", exit: 3, stderr: "no model" }], "crash.yaml");
    expect((await uwf("thread", "exec", failing, "--agent", crash)).code).toBe(4);
    const fixed = mock([drafted], "fixed.yaml");
    const resumed = await uwf(
      "thread",
      "resume",
      failing,
      "-c",
      "3",
      "--max-steps",
      "1",
      "--agent",
      fixed,
    );
    expect(resumed.code, resumed.stderr).toBe(0);

    // A fan-out and its join, in the background, joined; then a cancel.
    const review = await start(join(EXAMPLES, "fan-out-review.yaml"), "Review the change");
    const reviewer = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${join(EXAMPLES, "scenarios", "fan-out-review.yaml")}`;
    const background = await uwf(
      "thread",
      "exec",
      review,
      "-c",
      "5",
      "--background",
      "--agent",
      reviewer,
    );
    expect(background.code, background.stderr).toBe(0);
    expect((await uwf("thread", "join", review, "--quiet")).code).toBe(0);
    expect((await uwf("thread", "cancel", await start("checked"))).code).toBe(0);

    const ajv = new Ajv({ strict: false, allErrors: true });
    const seen = new Set<string>();
    const logs = join(temp.home, "logs");
    for (const file of readdirSync(logs)) {
      for (const line of readFileSync(join(logs, file), "utf8").split("\n")) {
        if (line === "") continue;
        const record = JSON.parse(line) as Record<string, unknown>;
        const name = record.event;
        expect(isEventName(name), `an event uwf does not declare: ${line}`).toBe(true);
        const validate = ajv.compile(eventSchemas()[name as EventName]);
        expect(validate(record), `${line}\n${ajv.errorsText(validate.errors)}`).toBe(true);
        expect(Object.keys(record).slice(0, 4)).toEqual(["ts", "level", "event", "pid"]);
        seen.add(name as string);
      }
    }
    expect([...seen].sort()).toEqual(
      expect.arrayContaining([
        "adapter.output",
        "exec.background",
        "exec.budget",
        "exec.end",
        "fanout.child",
        "fanout.joined",
        "fanout.started",
        "step.done",
        "step.failed",
        "step.retry",
        "step.start",
        "thread.cancel",
        "thread.completed",
        "thread.start",
        "thread.suspended",
        "workflow.add",
      ]),
    );
  });
});
