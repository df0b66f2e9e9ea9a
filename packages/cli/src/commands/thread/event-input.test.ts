import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { readGithubEvent } from "./event-input.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-event-input-"));
  writeFileSync(join(dir, "event.json"), '{ "action": "opened", "issue": { "number": 3 } }');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (isUwfError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("not refused");
}

describe("readGithubEvent", () => {
  test("reads the payload from a file or stdin, the name from the option or the runner", () => {
    const payload = { action: "opened", issue: { number: 3 } };
    expect(readGithubEvent(dir, { event: "event.json", eventName: "issues" }, {})).toEqual({
      name: "issues",
      payload,
    });
    expect(
      readGithubEvent(dir, { event: "-", delivery: " d-1 " }, { GITHUB_EVENT_NAME: "issues" }, () =>
        JSON.stringify(payload),
      ),
    ).toEqual({ name: "issues", payload, delivery: "d-1" });
    // --event-name wins over the runner's variable.
    expect(
      readGithubEvent(
        dir,
        { event: "event.json", eventName: "push" },
        { GITHUB_EVENT_NAME: "issues" },
      ).name,
    ).toBe("push");
  });

  test("refuses an unreadable file, text that is not a JSON object, and an unnamed event", () => {
    expect(refusal(() => readGithubEvent(dir, { event: "nope.json", eventName: "x" }, {}))).toMatch(
      /^USAGE: cannot read the event from --event nope\.json: /,
    );
    expect(
      refusal(() => readGithubEvent(dir, { event: "-", eventName: "x" }, {}, () => "[1]")),
    ).toBe("USAGE: the event from stdin (--event -) is not a JSON object");
    expect(
      refusal(() => readGithubEvent(dir, { event: "-", eventName: "x" }, {}, () => "{")),
    ).toMatch(/^USAGE: the event from stdin \(--event -\) is not JSON: /);
    expect(refusal(() => readGithubEvent(dir, { event: "event.json" }, {}))).toBe(
      "USAGE: the event's name is not known: give --event-name",
    );
  });
});
