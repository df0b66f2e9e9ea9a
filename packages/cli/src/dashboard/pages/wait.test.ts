import type { SuspendKind } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import type { WaitView } from "../data/wait.js";
import { waitPanel } from "./wait.js";

const THREAD = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
const wait = (kind: SuspendKind, extra: Partial<WaitView> = {}): WaitView => ({
  kind,
  role: "writer",
  reason: "why it waits",
  prompt: null,
  retryAfter: null,
  guard: null,
  form: null,
  ...extra,
});

describe("the wait panel", () => {
  it("labels each kind of wait as what it is, with the action that moves it on", () => {
    const expected: [SuspendKind, string, string][] = [
      ["question", "writer asks", "Answer and resume"],
      ["failure", "writer failed", "Retry the step"],
      ["retry", "writer failed for now", "Retry the step"],
      ["guard", "Stopped by a workflow guard before writer", "Run the step"],
      ["budget", "Stopped by a budget before writer", "Run the step"],
      ["fanout", "Waiting on its fan-out into writer", "Re-run the failed children"],
    ];
    for (const [kind, heading, button] of expected) {
      const text = waitPanel(THREAD, wait(kind, { guard: "maxVisits" }), "csrf", null).text;
      expect(text, kind).toContain(heading);
      expect(text, kind).toContain(`<button type="submit">${button}</button>`);
      expect(text, kind).toContain(`class="badge w-${kind}"`);
    }
    // Only a question needs words; a note for anything else is optional.
    expect(waitPanel(THREAD, wait("question"), "c", null).text).toContain("required");
    expect(waitPanel(THREAD, wait("budget"), "c", null).text).not.toContain("required");
    expect(waitPanel(THREAD, wait("guard", { guard: "maxVisits" }), "c", null).text).toContain(
      "<code>maxVisits</code> of <b>writer</b>",
    );
  });

  it("builds a human role's form from its schema: statuses as choices, fields as controls", () => {
    const view = wait("human", {
      role: "approver",
      prompt: "Approve <this>?",
      form: {
        statuses: [
          {
            status: "approved",
            fields: [
              {
                name: "note",
                required: false,
                types: ["string"],
                choices: null,
                description: "Anything to add.",
              },
              {
                name: "score",
                required: true,
                types: ["integer"],
                choices: null,
                description: null,
              },
              {
                name: "urgent",
                required: false,
                types: ["boolean"],
                choices: null,
                description: null,
              },
            ],
          },
          {
            status: "rejected",
            fields: [
              {
                name: "area",
                required: true,
                types: ["string"],
                choices: ["docs", "code"],
                description: null,
              },
              {
                name: "files",
                required: false,
                types: ["array"],
                choices: null,
                description: null,
              },
            ],
          },
        ],
      },
    });
    const text = waitPanel(THREAD, view, "csrf", null).text;
    expect(text).toContain("Approve &lt;this&gt;?");
    expect(text).toContain(
      '<input type="radio" class="choice" name="status" id="st-approved" value="approved" checked>',
    );
    expect(text).toContain(
      '<input type="radio" class="choice" name="status" id="st-rejected" value="rejected">',
    );
    expect(text).toContain('<textarea id="f-approved-note" name="f.approved.note"');
    expect(text).toContain(
      '<input type="number" id="f-approved-score" name="f.approved.score" value="">',
    );
    expect(text).toMatch(
      /<select id="f-approved-urgent"[^>]*><option value="">\(none\)<\/option><option>true<\/option><option>false<\/option>/,
    );
    expect(text).toMatch(
      /<select id="f-rejected-area"[^>]*><option value="">choose…<\/option><option>docs<\/option><option>code<\/option>/,
    );
    expect(text).toContain('placeholder="YAML or JSON, e.g. [a, b]"');
    // A hidden required control would block sending: the engine checks, not the browser.
    expect(text).not.toMatch(/<(input|textarea|select)[^>]* required/);

    // Sent back with what was wrong: the choice and the values stay.
    const sent = new URLSearchParams({ status: "rejected", "f.rejected.area": "docs" });
    const again = waitPanel(THREAD, view, "csrf", { error: "needs field", values: sent }).text;
    expect(again).toContain('id="answer-error">needs field</p>');
    expect(again).toContain('value="rejected" checked>');
    expect(again).toContain("<option selected>docs</option>");
    // Unticked "then run the next step" stays unticked.
    expect(again).not.toContain('value="1" checked');
  });
});
