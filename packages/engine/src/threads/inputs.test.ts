import { isUwfError, type UwfError } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { discardingCas } from "../workflow/schema-check.js";
import { checkThreadInputs, collectThreadInputs } from "./inputs.js";

const SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["issue", "title"],
  properties: {
    issue: { type: "integer", minimum: 1 },
    title: { type: "string" },
    weight: { type: "number" },
    urgent: { type: "boolean" },
    labels: { type: "array", items: { type: "string" } },
    repo: { type: "object" },
    due: { type: ["null", "integer", "string"] },
    note: {},
  },
};

function thrown(run: () => unknown): UwfError {
  try {
    run();
  } catch (error) {
    if (isUwfError(error)) return error;
    throw error;
  }
  throw new Error("expected an error");
}

const validate = discardingCas().schemaValidator(SCHEMA).validate;

describe("thread inputs from the command line", () => {
  it("coerces each --input by its declared type", () => {
    const values = collectThreadInputs("triage", SCHEMA, {
      pairs: [
        "issue=42",
        "title=Crash on save = data loss",
        "weight=0.5",
        "urgent=true",
        'labels=["bug","ui"]',
        'repo={"owner":"ada"}',
        "due=null",
        "note=007",
      ],
    });
    expect(values).toEqual({
      issue: 42,
      title: "Crash on save = data loss",
      weight: 0.5,
      urgent: true,
      labels: ["bug", "ui"],
      repo: { owner: "ada" },
      due: null,
      note: "007",
    });
    checkThreadInputs("triage", SCHEMA, values, validate);
  });

  it("tries a list of types in order, string last", () => {
    const due = (text: string) =>
      collectThreadInputs("triage", SCHEMA, { pairs: [`due=${text}`] }).due;
    expect(due("12")).toBe(12);
    expect(due("null")).toBeNull();
    expect(due("next week")).toBe("next week");
  });

  it("lays --input over the --inputs file, the later value winning", () => {
    const values = collectThreadInputs("triage", SCHEMA, {
      pairs: ["issue=7", "issue=8"],
      file: { name: "in.yaml", values: { issue: 1, title: "From the file" } },
    });
    expect(values).toEqual({ issue: 8, title: "From the file" });
  });

  it("names every value it cannot read, in one error", () => {
    const error = thrown(() =>
      collectThreadInputs("triage", SCHEMA, {
        pairs: ["issue=forty", "urgent=yes", "labels=bug", "=x", "weight="],
      }),
    );
    expect(error.code).toBe("INPUT_INVALID");
    expect(error.message).toBe(
      'invalid inputs for workflow "triage": --input issue=forty: expected an integer, got "forty"; --input urgent=yes: expected true or false, got "yes"; --input labels=bug: expected a JSON array, got "bug"; --input "=x": write it as name=value; --input weight=: expected a number, got ""',
    );
    expect(error.hint).toContain("issue (integer), title (string)");
    expect(error.hint).toContain("Nothing was started.");
  });

  it("refuses an --inputs file that is not a mapping", () => {
    const error = thrown(() =>
      collectThreadInputs("triage", SCHEMA, { pairs: [], file: { name: "in.json", values: [1] } }),
    );
    expect(error.message).toContain(
      "--inputs in.json: must hold a mapping of input name to value, found a list",
    );
  });

  it("refuses inputs for a workflow that declares none", () => {
    const error = thrown(() => collectThreadInputs("hello", null, { pairs: ["a=1"] }));
    expect(error.code).toBe("INPUT_INVALID");
    expect(error.message).toBe('workflow "hello" declares no inputs');
    expect(collectThreadInputs("hello", null, { pairs: [] })).toEqual({});
  });

  it("keeps a __proto__ input an ordinary key", () => {
    const values = collectThreadInputs("triage", SCHEMA, { pairs: ["__proto__=x"] });
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
    expect(Object.keys(values)).toEqual(["__proto__"]);
  });
});

describe("thread inputs against the schema", () => {
  it("names missing, unknown and wrong inputs", () => {
    const error = thrown(() =>
      checkThreadInputs("triage", SCHEMA, { issue: 0, labels: ["ok", 3], extra: 1 }, validate),
    );
    expect(error.code).toBe("INPUT_INVALID");
    const problems = error.details?.errors as string[];
    expect(problems).toEqual(
      expect.arrayContaining([
        'missing required input "title"',
        'unknown input "extra" (the workflow does not declare it)',
        'input "issue": must be >= 1',
        'input "labels/1": must be string',
      ]),
    );
  });

  it("names unreadable, missing and unknown inputs together, an unreadable one only once", () => {
    const error = thrown(() =>
      collectThreadInputs(
        "triage",
        SCHEMA,
        { pairs: ["issue=forty", "colour=red", "urgent=maybe"] },
        validate,
      ),
    );
    expect(error.details?.errors).toEqual([
      '--input issue=forty: expected an integer, got "forty"',
      '--input urgent=maybe: expected true or false, got "maybe"',
      'missing required input "title"',
      'unknown input "colour" (the workflow does not declare it)',
    ]);
  });
});
