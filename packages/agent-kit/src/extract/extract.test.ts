import { requireRoleExits } from "@united-workforce/engine";
import { openHomeStore, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { planDevReview } from "../__fixtures__/workflows.js";
import { checkCandidate, extractOutput, pickSchemaFields, type Validator } from "./extract.js";
import { SUSPEND_OUTPUT_SCHEMA } from "./suspend.js";

let temp: TempHome;
let validate: Validator;
const plannerSchema = planDevReview.roles.planner!.frontmatter;
const planner = requireRoleExits(planDevReview.name, "planner", plannerSchema);

beforeEach(async () => {
  temp = tempHome();
  const cas = (await openHomeStore(temp.home)).cas;
  const role = await cas.putSchema(plannerSchema);
  const suspend = await cas.putSchema(SUSPEND_OUTPUT_SCHEMA);
  const validators = { role: await cas.validator(role), suspend: await cas.validator(suspend) };
  validate = (candidate, kind) => validators[kind === "suspend" ? "suspend" : "role"](candidate);
});
afterEach(() => temp.cleanup());

describe("extractOutput", () => {
  it("reads plain frontmatter and the body after it", async () => {
    const result = extractOutput(
      "---\n$status: ready\nplan: do it\n---\n# Plan\n\nDetails.\n",
      planner,
      validate,
    );
    expect(result).toEqual({
      ok: true,
      output: { $status: "ready", plan: "do it" },
      body: "# Plan\n\nDetails.\n",
      suspend: false,
    });
  });

  it.each([
    ["a ```yaml fence", "```yaml\n$status: ready\nplan: fenced\n```\nbody\n"],
    ["a fence around --- lines", "```yaml\n---\n$status: ready\nplan: fenced\n---\n```\nbody\n"],
    ["a BOM", "\uFEFF---\n$status: ready\nplan: fenced\n---\nbody\n"],
    ["CRLF line endings", "---\r\n$status: ready\r\nplan: fenced\r\n---\r\nbody\r\n"],
    ["leading blank lines", "\n\n  \n---\n$status: ready\nplan: fenced\n---\nbody\n"],
  ])("tolerates %s", (_name, text) => {
    const result = extractOutput(text, planner, validate);
    expect(result.ok && result.output).toEqual({ $status: "ready", plan: "fenced" });
    expect(result.body).toBe("body\n");
  });

  it("keeps only the matched variant's fields", async () => {
    const result = extractOutput(
      "---\n$status: ready\nplan: p\nrepoPath: /r\nreason: chatter\nconfidence: 0.9\n---\n",
      planner,
      validate,
    );
    expect(result.ok && result.output).toEqual({ $status: "ready", plan: "p", repoPath: "/r" });
  });

  it("keeps the declared fields of a flat schema, $status always", async () => {
    const developer = requireRoleExits(
      planDevReview.name,
      "developer",
      planDevReview.roles.developer!.frontmatter,
    );
    expect(pickSchemaFields({ $status: "done", branch: "b", extra: 1 }, developer)).toEqual({
      $status: "done",
      branch: "b",
    });
    expect(pickSchemaFields({ $status: "x", other: 1 }, developer)).toEqual({ $status: "x" });
  });

  it("keeps every exit's fields while the output names no declared status", async () => {
    expect(pickSchemaFields({ plan: "p", reason: "r", chatter: 1 }, planner)).toEqual({
      plan: "p",
      reason: "r",
    });
  });

  it("names a missing field of the chosen variant and quotes the validator", async () => {
    const result = extractOutput("---\n$status: ready\n---\n", planner, validate);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors[0]).toBe(
      'missing required field "plan" (required when $status is "ready")',
    );
    expect(result.errors).toContain("/: must have required property 'plan'");
  });

  it("names the allowed statuses when $status is unknown or missing", async () => {
    const unknown = extractOutput("---\n$status: done\n---\n", planner, validate);
    expect(!unknown.ok && unknown.errors[0]).toBe(
      '"$status" is "done"; it must be one of "ready", "insufficient_info", "$SUSPEND"',
    );
    const missing = extractOutput("---\nplan: p\n---\n", planner, validate);
    expect(!missing.ok && missing.errors[0]).toBe(
      'missing "$status": it must be one of "ready", "insufficient_info", "$SUSPEND"',
    );
  });

  it("refuses a $status holding an invisible character, naming it, even beside a valid one", async () => {
    for (const status of ["ready\u200b", "\u202eready", "ready\u00a0"]) {
      const result = extractOutput(`---\n$status: "${status}"\nplan: p\n---\n`, planner, validate);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.errors[0]).toMatch(
        /^"\$status" "[^"]*\\u\{[0-9A-F]{4}\}[^"]*" holds an invisible or control character \(U\+[0-9A-F]{4} at position \d\); it must be one of "ready", "insufficient_info", "\$SUSPEND", typed without it$/,
      );
    }
  });

  it("names an unknown status and a missing field of a flat schema in the same words", async () => {
    const developer = requireRoleExits(
      planDevReview.name,
      "developer",
      planDevReview.roles.developer!.frontmatter,
    );
    const accept: Validator = () => ({ valid: true, errors: [] });
    const unknown = checkCandidate({ $status: "shipped", branch: "b" }, developer, accept, "");
    expect(!unknown.ok && unknown.errors).toEqual([
      '"$status" is "shipped"; it must be one of "done", "$SUSPEND"',
    ]);
    const missing = checkCandidate({ $status: "done" }, developer, accept, "");
    expect(!missing.ok && missing.errors).toEqual([
      'missing required field "branch" (required when $status is "done")',
    ]);
  });

  it("reports output without frontmatter, and YAML that does not parse", async () => {
    const none = extractOutput("I did it!", planner, validate);
    expect(!none.ok && none.errors[0]).toMatch(/^no YAML frontmatter found/);
    const broken = extractOutput("---\nplan: [unclosed\n---\n", planner, validate);
    expect(!broken.ok && broken.errors[0]).toMatch(/^frontmatter is not valid YAML/);
  });

  it("accepts $SUSPEND with a reason whatever the role schema says", async () => {
    const result = extractOutput(
      "---\n$status: $SUSPEND\nreason: Which repo?\nplan: x\n---\nbody",
      planner,
      validate,
    );
    expect(result).toEqual({
      ok: true,
      output: { $status: "$SUSPEND", reason: "Which repo?" },
      body: "body",
      suspend: true,
    });
    const empty = extractOutput("---\n$status: $SUSPEND\n---\n", planner, validate);
    expect(empty.ok).toBe(false);
  });
});
