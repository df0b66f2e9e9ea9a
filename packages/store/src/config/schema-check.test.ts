import { CONFIG_SCHEMA } from "@united-workforce/protocol";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { CHECKED_KEYWORDS, type SchemaLike, schemaProblems, unknownKeys } from "./schema-check.js";

const NOTES = new Set(["$schema", "title", "description"]);

/** Every keyword the schema uses, at any depth. */
function keywords(schema: SchemaLike, found = new Set<string>()): Set<string> {
  for (const [keyword, value] of Object.entries(schema)) {
    found.add(keyword);
    if (keyword === "properties") {
      for (const inner of Object.values(value as Record<string, SchemaLike>))
        keywords(inner, found);
    } else if ((keyword === "items" || keyword === "additionalProperties") && value !== null) {
      if (typeof value === "object") keywords(value as SchemaLike, found);
    }
  }
  return found;
}

const SAMPLES: unknown[] = [
  {},
  { defaultAgent: "mock", agents: { mock: { command: "uwf-mock", args: ["-x"] } } },
  { defaultAgent: 42 },
  { defaultAgent: "" },
  { defaultAgent: null, agents: null },
  { agents: { a: { command: "" } } },
  { agents: { a: { command: "x", timeoutSeconds: 0 } } },
  { agents: { a: { command: "x", timeoutSeconds: 0.5 } } },
  { agents: { a: { command: "x", args: "--y" } } },
  { agents: { a: null } },
  { agents: [] },
  { agentOverrides: { wf: { role: "mock" } } },
  { agentOverrides: { wf: { role: ["mock"] } } },
  { agentOverrides: { wf: null } },
  { models: { m: { provider: "p", name: "n", extra: true } } },
  { models: { m: { provider: "p" } } },
  { providers: { p: { baseUrl: "http://x", apiKey: "" } } },
  { providers: { p: { baseUrl: "http://x", apiKeyEnv: "" } } },
  { providers: { p: { baseUrl: "http://x", api: "gemini" } } },
  { providers: { p: { baseUrl: "http://x", api: "openai" } } },
  { providers: { p: { baseUrl: "http://x", api: null } } },
  { agents: { a: { command: "x", model: "m", env: { A: "1" } } } },
  { agents: { a: { command: "x", env: { A: 1 } } } },
  { agents: { a: { command: "x", env: ["A=1"] } } },
  { agents: { a: { command: "x", model: "" } } },
  { modelOverrides: { extract: "m", summary: 3 } },
  { modelOverrides: { extract: "m" } },
  { modelOverrides: { extract: 3 } },
  { someOtherTool: [1, 2] },
  [],
  "text",
];

describe("schemaProblems", () => {
  it("understands every keyword the config schema uses", () => {
    const unchecked = [...keywords(CONFIG_SCHEMA as SchemaLike)].filter(
      (k) => !NOTES.has(k) && !(CHECKED_KEYWORDS as readonly string[]).includes(k),
    );
    expect(unchecked).toEqual([]);
  });

  it("accepts and refuses exactly what ajv does with the config schema", () => {
    const validate = new Ajv({ strict: false }).compile(CONFIG_SCHEMA);
    for (const sample of SAMPLES) {
      expect({
        sample,
        valid: schemaProblems(CONFIG_SCHEMA as SchemaLike, sample).length === 0,
      }).toEqual({ sample, valid: validate(sample) });
    }
  });
});

describe("unknownKeys", () => {
  it("names keys the schema does not list where it lists a mapping's keys", () => {
    const config = {
      web: 1,
      agents: { "my.agent": { command: "x", argz: [] }, b: { command: "y", env: { ANY: "1" } } },
      agentOverrides: { wf: { role: "a" } },
    };
    expect(unknownKeys(CONFIG_SCHEMA as SchemaLike, config)).toEqual([
      "web",
      'agents["my.agent"].argz',
    ]);
  });
});
