import { createRequire } from "node:module";
import type { JsonSchema } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { knownFormatNames, validatorFormats } from "./formats.js";
import { runValidator, validatorFor } from "./validator-cache.js";

const contactSchema: JsonSchema = {
  type: "object",
  properties: {
    to: { type: "string", format: "email" },
    at: { type: "string", format: "date-time" },
    site: { type: "string", format: "uri" },
    id: { type: "string", format: "uuid" },
    count: { type: "integer", format: "int32" },
    ref: { type: "string", format: "cas-ref" },
  },
};

describe("formats", () => {
  it("checks the standard formats", () => {
    const validate = validatorFor("00000000FMT01", contactSchema);
    const good = {
      to: "ada@example.com",
      at: "2024-02-29T12:30:00Z",
      site: "https://example.com/a?b=c",
      id: "0f8fad5b-d9cb-469f-a165-70867728950e",
      count: 2147483647,
      ref: "7MSKT4YB69AED",
    };
    expect(runValidator(validate, good)).toEqual({ valid: true, errors: [] });
    const bad = {
      to: "not-an-email",
      at: "2023-02-29T12:30:00Z",
      site: "no scheme",
      id: "0f8fad5b",
      count: 2147483648,
      ref: "not a hash",
    };
    // In the order of the schema node's canonical (sorted) keys.
    expect(runValidator(validate, bad).errors).toEqual([
      '/at: must match format "date-time"',
      '/count: must match format "int32"',
      '/id: must match format "uuid"',
      '/ref: must match format "cas-ref"',
      '/site: must match format "uri"',
      '/to: must match format "email"',
    ]);
  });

  it("applies a format to values of its own type only", () => {
    const validate = validatorFor("00000000FMT02", { format: "email" });
    expect(runValidator(validate, 42).valid).toBe(true);
    expect(runValidator(validate, "ada").valid).toBe(false);
  });

  it("ignores a format it does not know, in every dialect, so stored schemas keep compiling", () => {
    // `workflow validate` warns about one (engine schema-lint); a stored workflow still runs.
    const schemas: JsonSchema[] = [
      { type: "object", properties: { to: { type: "string", format: "emial" } } },
      { type: "array", items: { anyOf: [{ type: "number" }, { format: "colour" }] } },
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $defs: { hex: { type: "string", format: "colour" } },
        properties: { fill: { $ref: "#/$defs/hex" } },
      },
      { $schema: "https://json-schema.org/draft/2019-09/schema", format: "colour" },
    ];
    const values = [{ to: "x" }, ["red"], { fill: "red" }, "red"];
    schemas.forEach((schema, i) => {
      expect(runValidator(validatorFor(`00000000FMU0${i}`, schema), values[i]).valid).toBe(true);
    });
  });

  it("names every format it checks", () => {
    expect(knownFormatNames()).toEqual(Object.keys(validatorFormats()));
  });

  it("still accepts keywords ajv does not know, as before", () => {
    const validate = validatorFor("00000000FMT04", {
      type: "string",
      "x-widget": "textarea",
      widget: { rows: 3 },
    });
    expect(runValidator(validate, "text").valid).toBe(true);
  });

  it("knows exactly the installed ajv-formats' formats, each for the type it checks", () => {
    const { fullFormats, formatNames } = createRequire(import.meta.url)(
      "ajv-formats/dist/formats",
    ) as typeof import("ajv-formats/dist/formats.js");
    const types = Object.fromEntries(
      formatNames.map((name) => {
        const format = fullFormats[name];
        const numeric = typeof format === "object" && "type" in format && format.type === "number";
        return [name, numeric ? "number" : "string"];
      }),
    );
    const ours = Object.entries(validatorFormats()).filter(([name]) => name !== "cas-ref");
    expect(Object.fromEntries(ours.map(([name, format]) => [name, format.type]))).toEqual(types);
  });
});
