import { requireRoleExits, type SchemaMap } from "@united-workforce/engine";
import { describe, expect, it } from "vitest";
import { planDevReview } from "../__fixtures__/workflows.js";
import { buildOutputFormatInstruction, SCOPE_SENTENCE } from "./output-format.js";

const planner = planDevReview.roles.planner!.frontmatter;
const developer = planDevReview.roles.developer!.frontmatter;

/** The instruction for a role schema, read the way createAgent reads it. */
function instruction(schema: SchemaMap): string {
  return buildOutputFormatInstruction(requireRoleExits("test", "role", schema));
}

function block(text: string, heading: string): string {
  const from = text.indexOf(heading);
  expect(from, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const next = text.indexOf("\n### ", from + heading.length);
  return text.slice(from, next === -1 ? undefined : next);
}

describe("buildOutputFormatInstruction", () => {
  it("renders one block per $status variant of a discriminated oneOf", () => {
    const text = instruction(planner);
    expect(text).toContain("### When `$status: ready`");
    expect(text).toContain("### When `$status: insufficient_info`");
    expect(text).toContain("Choose exactly ONE of the following variants");
  });

  it("lists only the variant's own fields in each block", () => {
    const text = instruction(planner);
    const ready = block(text, "### When `$status: ready`");
    const insufficient = block(text, "### When `$status: insufficient_info`");
    expect(ready).toContain("`plan` (required): string — the plan in one paragraph");
    expect(ready).toContain("`repoPath` (optional): string");
    expect(ready).not.toContain("reason");
    expect(insufficient).toContain("`reason` (required): string");
    expect(insufficient).not.toContain("plan");
  });

  it("renders const values as literals, in the list and in the example", () => {
    const ready = block(instruction(planner), "### When `$status: ready`");
    expect(ready).toContain("`$status` (required): exactly `ready`");
    expect(ready).toContain(
      "```yaml\n---\n$status: ready\nplan: <string>\nrepoPath: <string>  # optional\n---\n```",
    );
  });

  it("quotes literals that YAML would read as another type", () => {
    const text = instruction({
      properties: { $status: { const: "123" }, flag: { const: true } },
      required: ["$status"],
    });
    expect(text).toContain('$status: "123"');
    expect(text).toContain("flag: true  # optional");
  });

  it("documents the $SUSPEND exit and the scope sentence", () => {
    const text = instruction(planner);
    expect(text).toContain("### When you need a human: `$status: $SUSPEND`");
    expect(text).toContain("$status: $SUSPEND\nreason: <your question for the human>");
    expect(text).toContain(SCOPE_SENTENCE);
    expect(SCOPE_SENTENCE).toBe("Focus exclusively on YOUR role's deliverable.");
  });

  it("adds shared top-level properties to every variant", () => {
    const text = instruction({
      properties: { summary: { type: "string" } },
      required: ["summary"],
      oneOf: [
        { properties: { $status: { enum: ["approved"] } }, required: ["$status"] },
        {
          properties: { $status: { enum: ["rejected"] }, comments: { type: "string" } },
          required: ["$status"],
        },
      ],
    });
    expect(block(text, "### When `$status: approved`")).toContain("`summary` (required): string");
    expect(block(text, "### When `$status: rejected`")).toContain("`summary` (required): string");
    expect(block(text, "### When `$status: approved`")).not.toContain("comments");
  });

  it("renders a flat schema as one block with types and required markers", () => {
    const text = instruction(developer);
    expect(text).not.toContain("### When `$status:");
    const fields = block(text, "### Frontmatter");
    expect(fields).toContain("`$status` (required): exactly `done`");
    expect(fields).toContain("`branch` (required): string");
    expect(fields).toContain("`filesChanged` (optional): list of string");
    expect(fields).toContain("filesChanged:  # optional\n  - <string>");
    expect(text).toContain("### When you need a human: `$status: $SUSPEND`");
    expect(text).toContain(SCOPE_SENTENCE);
  });

  it("shows an enum $status as its choices", () => {
    const text = instruction({
      type: "object",
      properties: { $status: { enum: ["continue", "conceded"] }, argument: { type: "string" } },
      required: ["$status", "argument"],
    });
    expect(text).toContain("`$status` (required): one of `continue`, `conceded`");
    expect(text).toContain("$status: continue  # one of: continue | conceded");
  });

  it("merges a oneOf without a $status discriminant into one block", () => {
    const text = instruction({
      properties: { $status: { const: "done" } },
      required: ["$status"],
      oneOf: [
        { properties: { foo: { type: "string" } }, required: ["foo"] },
        { properties: { bar: { type: "boolean" } }, required: ["bar"] },
      ],
    });
    expect(text).not.toContain("### When `$status:");
    expect(text).toContain("`$status` (required): exactly `done`");
    expect(text).toContain("`foo` (optional): string");
    expect(text).toContain("`bar` (optional): boolean");
  });
});
