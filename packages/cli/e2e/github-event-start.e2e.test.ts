import { readFileSync, writeFileSync } from "node:fs";
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
/** A real `issues.opened` payload (from @octokit/webhooks-examples), as a runner writes it. */
const ISSUE_OPENED = join(REPO_ROOT, "examples/events/issues.opened.json");

let temp: TempHome;
let home: string;
const uwf = (args: string[], env: Record<string, string | undefined> = {}, input?: string) =>
  runUwf(args, {
    home,
    cwd: temp.home,
    env: { GITHUB_EVENT_NAME: undefined, ...env },
    ...(input === undefined ? {} : { input }),
  });

beforeEach(() => {
  temp = tempHome();
  home = join(temp.home, "uwf-home");
});
afterEach(() => temp.cleanup());

describe("thread start --event (examples/triage.yaml's on.github)", () => {
  it("starts once per event, refuses what the workflow does not declare, and runs", async () => {
    const first = await uwf(["thread", "start", TRIAGE, "--event", ISSUE_OPENED], {
      GITHUB_EVENT_NAME: "issues",
    });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const thread = first.stdout.trim();
    expect(thread).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);

    // The same event again (a re-run job, a redelivery): the same thread, not a second one.
    const again = await uwf([
      ...["thread", "start", TRIAGE, "--event", ISSUE_OPENED, "--event-name", "issues"],
      ...["--format", "json"],
    ]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      thread,
      title: "Spelling error in the README file",
      workflow: "triage",
      head: expect.any(String),
      status: "idle",
      started: false,
      event: "issues.opened",
      key: "Codertocat/Hello-World#1",
    });
    const text = await uwf(
      ["thread", "start", TRIAGE, "--event", "-", "--event-name", "issues"],
      {},
      readFileSync(ISSUE_OPENED, "utf8"),
    );
    expect([text.code, text.stdout.trim()]).toEqual([0, thread]);
    expect(text.stderr).toContain(`thread ${thread} was already started by this event`);

    // An event the workflow does not declare: refused with what it declares, nothing started.
    const edited = JSON.parse(readFileSync(ISSUE_OPENED, "utf8"));
    edited.action = "edited";
    writeFileSync(join(temp.home, "edited.json"), JSON.stringify(edited));
    const refused = await uwf([
      ...["thread", "start", TRIAGE, "--event", join(temp.home, "edited.json")],
      ...["--event-name", "issues"],
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'error: workflow "triage" is not started by the GitHub event issues.edited: it declares issues.opened',
    );
    const noTrigger = await uwf([
      "thread",
      "start",
      HELLO,
      "--event",
      ISSUE_OPENED,
      "--event-name",
      "issues",
    ]);
    expect(noTrigger.code).toBe(2);
    expect(noTrigger.stderr).toContain('workflow "hello" declares no GitHub trigger');
    const unnamed = await uwf(["thread", "start", TRIAGE, "--event", ISSUE_OPENED]);
    expect([unnamed.code, unnamed.stderr]).toEqual([
      2,
      expect.stringContaining("the event's name is not known: give --event-name"),
    ]);
    const list = JSON.parse((await uwf(["thread", "list", "--format", "json"])).stdout);
    expect(list.threads.map((t: { thread: string }) => t.thread)).toEqual([thread]);

    // The event's fields are the thread's typed inputs; the mock agent runs it to the end.
    const show = JSON.parse((await uwf(["thread", "show", thread, "--format", "json"])).stdout);
    expect(show.inputs).toEqual({ issue: 1, title: "Spelling error in the README file" });
    const exec = await uwf([
      ...["thread", "exec", thread, "-c", "2", "--format", "json"],
      ...["--agent", `${process.execPath} ${UWF_MOCK_BIN} --scenario ${TRIAGE_SCENARIO}`],
    ]);
    expect(exec.code).toBe(0);
    expect(JSON.parse(exec.stdout)).toMatchObject({ thread, status: "completed" });
  });

  it("workflow show names the triggers, in text and JSON", async () => {
    const text = (await uwf(["workflow", "show", TRIAGE])).stdout;
    expect(text).toContain(
      [
        "triggers:",
        "  github: issues.opened",
        "    issue ← {{{event.issue.number}}}",
        "    title ← {{{event.issue.title}}}",
        "    key: {{{event.repository.full_name}}}#{{{event.issue.number}}}",
      ].join("\n"),
    );
    const doc = JSON.parse((await uwf(["workflow", "show", TRIAGE, "--format", "json"])).stdout);
    expect(doc.on.github.events).toEqual(["issues.opened"]);
    const hello = JSON.parse((await uwf(["workflow", "show", HELLO, "--format", "json"])).stdout);
    expect(hello).not.toHaveProperty("on");
  });
});
