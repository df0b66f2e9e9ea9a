import { describe, expect, test } from "vitest";
import { requireRoleExits } from "../workflow/role-exits.js";
import { answerOutput } from "./human-step.js";

const exits = requireRoleExits("w", "approver", {
  properties: { note: { type: "string" } },
  oneOf: [
    {
      properties: {
        $status: { const: "approved" },
        score: { type: "integer" },
        tags: { type: "array" },
      },
      required: ["$status"],
    },
    {
      properties: { $status: { const: "rejected" }, reason: { type: "string" } },
      required: ["$status", "reason"],
    },
  ],
});

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    return (error as { details?: { errors?: string[] } }).details?.errors ?? [];
  }
  throw new Error("the answer was accepted");
}

describe("answerOutput", () => {
  test("types --set values by the field's schema: text for strings, YAML for the rest", () => {
    const output = answerOutput("approver", exits, {
      status: "approved",
      sets: [
        ["score", "3"],
        ["note", "3"],
        ["tags", "[a, b]"],
      ],
      by: "ada",
    });
    expect(output).toEqual({ $status: "approved", score: 3, note: "3", tags: ["a", "b"] });
  });

  test("a file's values are kept and --set and --status win over them", () => {
    const output = answerOutput("approver", exits, {
      status: "rejected",
      values: { $status: "approved", reason: "old" },
      sets: [["reason", "new"]],
      by: "ada",
    });
    expect(output).toEqual({ $status: "rejected", reason: "new" });
  });

  test("refuses a status holding an invisible character, showing where it is", () => {
    expect(
      problemsOf(() => answerOutput("approver", exits, { status: "approved\u200b", by: "a" })),
    ).toEqual([
      'status "approved\\u{200B}" holds an invisible or control character (U+200B at position 9); type one of: approved, rejected',
    ]);
  });

  test("says every problem at once, naming the statuses and fields", () => {
    expect(problemsOf(() => answerOutput("approver", exits, { status: "maybe", by: "a" }))).toEqual(
      ['status "maybe" is not one of role "approver"\'s: approved, rejected'],
    );
    expect(
      problemsOf(() =>
        answerOutput("approver", exits, {
          status: "rejected",
          sets: [["score", "1"]],
          by: "a",
        }),
      ),
    ).toEqual([
      'field "score" is not part of status "rejected" (its fields: note, reason)',
      'status "rejected" needs field "reason": add --set reason=…',
    ]);
    expect(problemsOf(() => answerOutput("approver", exits, { by: "a" }))).toEqual([
      'the answer has no "$status": pass --status (one of: approved, rejected)',
    ]);
  });
});
