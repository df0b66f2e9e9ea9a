import { stepSchema } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import type { PrecompiledValidator } from "./builtin-validators.js";
import { runModule } from "./disk-cache.js";
import {
  formatErrors,
  hasCachedValidator,
  runValidator,
  standaloneValidatorCode,
  validatorCacheInternals,
  validatorFor,
} from "./validator-cache.js";

const schema = JSON.parse(JSON.stringify(stepSchema));

describe("validator cache", () => {
  it("compiles each schema once, however often it is looked up", () => {
    const before = validatorCacheInternals.counts().compiled;
    const validate = validatorFor("0000000000MS1", { ...schema, $id: "uwf:m1" });
    for (let i = 0; i < 1000; i++) {
      expect(validatorFor("0000000000MS1", schema)).toBe(validate);
      runValidator(validate, {});
    }
    expect(validatorCacheInternals.counts().compiled).toBe(before + 1);
  });

  it("compiles a schema once per process and reuses the same validator", () => {
    const hash = "0000000000STP";
    expect(hasCachedValidator(hash)).toBe(false);
    const first = validatorFor(hash, schema);
    expect(hasCachedValidator(hash)).toBe(true);
    expect(validatorFor(hash, schema)).toBe(first);
  });

  it("formats errors as path: message, with the offending name or allowed values", () => {
    const validate = validatorFor("0000000000FMT", {
      type: "object",
      required: ["plan"],
      additionalProperties: false,
      properties: { plan: { type: "string" }, $status: { enum: ["done", "blocked"] } },
    });
    expect(runValidator(validate, { plan: 1, $status: "x", extra: true })).toEqual({
      valid: false,
      errors: [
        '/: must NOT have additional properties ("extra")',
        // The canonical key order of the schema node, not the object's.
        '/$status: must be equal to one of the allowed values ("done", "blocked")',
        "/plan: must be string",
      ],
    });
    expect(runValidator(validate, {}).errors).toEqual(["/: must have required property 'plan'"]);
    expect(formatErrors([])).toEqual([]);
  });

  it("understands draft 2020-12 schemas and the cas-ref format", () => {
    const validate = validatorFor("0000000002020", {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "array",
      prefixItems: [{ type: "string", format: "cas-ref" }],
    });
    expect(runValidator(validate, ["7MSKT4YB69AED"]).valid).toBe(true);
    expect(runValidator(validate, ["not a hash"]).errors).toEqual([
      '/0: must match format "cas-ref"',
    ]);
  });
});

describe("standaloneValidatorCode (what the bundles carry for built-in schemas)", () => {
  it("runs as a module function and validates exactly like the compiled validator", () => {
    const code = standaloneValidatorCode(schema);
    expect(code).not.toBeNull();
    const fromCode = runModule(
      new Function("require", "module", "exports", code!) as PrecompiledValidator,
    );
    expect(fromCode).not.toBeNull();
    const compiled = validatorFor("0000000000SVC", schema);
    for (const payload of [{}, { role: 1, extra: true }, "text", null]) {
      expect(runValidator(fromCode!, payload)).toEqual(runValidator(compiled, payload));
    }
    expect(runValidator(fromCode!, { role: 1 }).valid).toBe(false);
  });
});
