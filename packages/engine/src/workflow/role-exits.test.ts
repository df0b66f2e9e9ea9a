import { isUwfError } from "@united-workforce/util";
import { describe, expect, test } from "vitest";
import { readRoleExits, requireRoleExits } from "./role-exits.js";

describe("readRoleExits", () => {
  test("gives each oneOf variant the shared properties, refined by its own, and both required lists", () => {
    const errors: string[] = [];
    const exits = readRoleExits(
      "reviewer",
      {
        properties: { summary: { type: "string", description: "one line" } },
        required: ["summary"],
        oneOf: [
          { properties: { $status: { const: "approved" } }, required: ["$status"] },
          {
            properties: {
              $status: { const: "rejected" },
              summary: { maxLength: 80 },
              comments: { type: "string" },
            },
            required: ["$status", "comments"],
          },
        ],
      },
      errors,
    );
    expect(errors).toEqual([]);
    expect(exits?.discriminated).toBe(true);
    expect(exits?.statuses).toEqual(["approved", "rejected"]);
    expect(exits?.outputs.get("approved")).toEqual({
      properties: {
        summary: { type: "string", description: "one line" },
        $status: { const: "approved" },
      },
      required: ["summary", "$status"],
    });
    expect(exits?.outputs.get("rejected")).toEqual({
      properties: {
        summary: { type: "string", description: "one line", maxLength: 80 },
        $status: { const: "rejected" },
        comments: { type: "string" },
      },
      required: ["summary", "$status", "comments"],
    });
  });

  test("a flat $status: every status carries every field, required only where every oneOf branch says so", () => {
    const errors: string[] = [];
    const exits = readRoleExits(
      "writer",
      {
        properties: { $status: { enum: ["draft", "final"] } },
        required: ["$status"],
        oneOf: [
          { properties: { text: { type: "string" }, url: {} }, required: ["text", "url"] },
          { properties: { text: { type: "string" }, path: {} }, required: ["text", "path"] },
        ],
      },
      errors,
    );
    expect(errors).toEqual([]);
    expect(exits?.discriminated).toBe(false);
    const output = {
      properties: {
        $status: { enum: ["draft", "final"] },
        text: { type: "string" },
        url: {},
        path: {},
      },
      required: ["$status", "text"],
    };
    expect(exits?.outputs.get("draft")).toEqual(output);
    expect(exits?.outputs.get("final")).toEqual(output);
  });
});

describe("requireRoleExits", () => {
  test("refuses a schema validation refuses, with validation's messages", () => {
    let thrown: unknown;
    try {
      requireRoleExits("review", "reviewer", {
        anyOf: [{ properties: { $status: { const: "ok" } }, required: ["$status"] }],
      });
    } catch (error) {
      thrown = error;
    }
    expect(isUwfError(thrown) && thrown.code).toBe("WORKFLOW_INVALID");
    expect(isUwfError(thrown) && thrown.details).toMatchObject({
      file: "review",
      errors: [
        'role "reviewer" frontmatter: "$status" variants must be listed under "oneOf", not "anyOf" (exactly one exit applies to an output)',
        'role "reviewer" frontmatter has no "$status" property: declare the role\'s exits with "$status": { const: done }, an enum of statuses, or oneOf variants',
        'role "reviewer" frontmatter must list "$status" in "required"',
      ],
    });
  });

  test('refuses a "_" status, which validation reports but still reads', () => {
    expect(() =>
      requireRoleExits("w", "r", {
        properties: { $status: { enum: ["_", "done"] } },
        required: ["$status"],
      }),
    ).toThrow('status key "_" is no longer valid');
  });
});
