import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonSchema } from "@united-workforce/protocol";
import { isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cas } from "../cas/cas.js";
import { createFsBackend } from "../cas/fs-backend.js";
import {
  AJV_VERSION,
  cacheFileName,
  instantiate,
  readCachedValidator,
  writeCachedValidator,
} from "./disk-cache.js";
import { runValidator, validatorCacheInternals, validatorFor } from "./validator-cache.js";

let home: string;
let cacheDir: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-validators-"));
  cacheDir = join(home, "cache", "validators");
  validatorCacheInternals.forget();
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** A fresh Cas over the same home, as a new process would open it (no validator in memory). */
function newProcessCas(): Cas {
  validatorCacheInternals.forget();
  return Cas.open(home);
}

/** Compiles and disk reads since `fn` started. */
function counting(fn: () => void): { compiled: number; fromDisk: number } {
  const before = validatorCacheInternals.counts();
  fn();
  const after = validatorCacheInternals.counts();
  return { compiled: after.compiled - before.compiled, fromDisk: after.fromDisk - before.fromDisk };
}

const richSchema: JsonSchema = {
  type: "object",
  required: ["$status", "plan", "ref", "choice", "nested"],
  additionalProperties: false,
  properties: {
    $status: { enum: ["done", "blocked", { later: true }] },
    plan: { type: "string", minLength: 3 },
    ref: { type: "string", format: "cas-ref" },
    kind: { const: "plan" },
    shape: { const: { sides: 4 } },
    choice: { oneOf: [{ type: "string" }, { type: "integer", minimum: 0 }, { type: "number" }] },
    nested: {
      type: "object",
      required: ["inner"],
      properties: {
        inner: {
          type: "object",
          required: ["name"],
          properties: { name: { type: "string", maxLength: 2 } },
        },
      },
    },
    tags: { type: "array", uniqueItems: true, items: { type: "string", pattern: "^[a-z]+$" } },
  },
};

const invalidPayloads: unknown[] = [
  {},
  "not an object",
  {
    $status: "maybe",
    plan: "ab",
    ref: "not a hash",
    kind: "other",
    shape: { sides: 3 },
    choice: 2,
    nested: { inner: {} },
    tags: ["a", "a", "B"],
    extra: true,
  },
  {
    $status: { later: false },
    plan: "😀😀",
    ref: "7MSKT4YB69AED",
    choice: null,
    nested: { inner: { name: "abc" } },
  },
  { $status: "done", plan: "fine", ref: "7MSKT4YB69AEDX", choice: "x", nested: [] },
];

describe("validators cached on disk across processes", () => {
  it("a later process validates from the disk cache without compiling", () => {
    const first = Cas.open(home);
    const type = first.putSchema(richSchema);
    const payload = {
      $status: "done",
      plan: "ship",
      ref: "7MSKT4YB69AED",
      choice: "a",
      nested: { inner: { name: "x" } },
    };
    expect(readdirSync(cacheDir)).toEqual([cacheFileName(type)]);

    const second = newProcessCas();
    let hash = "";
    const counts = counting(() => {
      hash = second.put(type, payload);
    });
    expect(counts).toEqual({ compiled: 0, fromDisk: 1 });
    expect(second.get(hash).payload).toEqual(payload);

    // A built-in schema too: the first process compiles it, the next reads it.
    const step = second.builtin("step");
    expect(counting(() => second.validate(step, {}))).toEqual({ compiled: 1, fromDisk: 0 });
    const third = newProcessCas();
    expect(counting(() => third.validate(step, {}))).toEqual({ compiled: 0, fromDisk: 1 });
  });

  it("gives the same errors from a cached validator as from a freshly compiled one", () => {
    const type = Cas.open(home).putSchema(richSchema);
    validatorCacheInternals.forget();
    const fresh = validatorFor(type, richSchema);
    const expected = invalidPayloads.map((payload) => runValidator(fresh, payload));

    const cas = newProcessCas();
    const counts = counting(() => {
      const actual = invalidPayloads.map((payload) => cas.validate(type, payload));
      expect(actual).toEqual(expected);
    });
    expect(counts).toEqual({ compiled: 0, fromDisk: 1 });
    expect(expected.every((result) => !result.valid)).toBe(true);
    // In the order of the schema node's canonical (sorted) keys, whatever object was compiled.
    expect(expected[2]!.errors).toEqual([
      '/: must NOT have additional properties ("extra")',
      '/$status: must be equal to one of the allowed values ("done", "blocked", {"later":true})',
      "/choice: must be string",
      "/choice: must match exactly one schema in oneOf",
      '/kind: must be equal to constant ("plan")',
      "/nested/inner: must have required property 'name'",
      "/plan: must NOT have fewer than 3 characters",
      '/ref: must match format "cas-ref"',
      '/shape: must be equal to constant ({"sides":4})',
      '/tags/2: must match pattern "^[a-z]+$"',
      "/tags: must NOT have duplicate items (items ## 1 and 0 are identical)",
    ]);
    expect(expected[3]!.errors).toContain(
      "/nested/inner/name: must NOT have more than 2 characters",
    );
    // Length in code points, as ajv counts it: "😀😀" is 2, so too short for minLength 3.
    expect(expected[3]!.errors).toContain("/plan: must NOT have fewer than 3 characters");
  });

  it("caches draft 2020-12 schemas", () => {
    const schema: JsonSchema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { ref: { type: "string", format: "cas-ref" } },
      properties: {
        pair: {
          type: "array",
          prefixItems: [{ $ref: "#/$defs/ref" }, { type: "integer" }],
          items: false,
        },
      },
      unevaluatedProperties: false,
    };
    const type = Cas.open(home).putSchema(schema);
    const payloads = [{ pair: ["7MSKT4YB69AED", 1] }, { pair: ["nope", 1.5, 3] }, { other: 1 }];
    validatorCacheInternals.forget();
    const fresh = validatorFor(type, schema);
    const expected = payloads.map((payload) => runValidator(fresh, payload));
    expect(expected.map((result) => result.valid)).toEqual([true, false, false]);
    expect(expected[2]!.errors).toEqual(["/: must NOT have unevaluated properties"]);

    const cas = newProcessCas();
    const counts = counting(() => {
      expect(payloads.map((payload) => cas.validate(type, payload))).toEqual(expected);
    });
    expect(counts).toEqual({ compiled: 0, fromDisk: 1 });
  });

  it("recompiles in place of a damaged cache file, with the same result", () => {
    const type = Cas.open(home).putSchema(richSchema);
    const file = join(cacheDir, cacheFileName(type));
    const good = readFileSync(file, "utf8");
    const expected = invalidPayloads.map((payload) => newProcessCas().validate(type, payload));
    const damaged = [
      good.slice(0, Math.floor(good.length / 2)), // truncated
      good.slice(0, good.lastIndexOf("function validate")), // cut after a whole statement
      good.replace("must be", "must bee"), // edited
      "", // empty
      "garbage without a header",
    ];
    for (const text of damaged) {
      writeFileSync(file, text);
      const cas = newProcessCas();
      const counts = counting(() => {
        expect(invalidPayloads.map((payload) => cas.validate(type, payload))).toEqual(expected);
      });
      expect(counts).toEqual({ compiled: 1, fromDisk: 0 });
      // Rewritten whole by the recompiling process.
      expect(readCachedValidator(cacheDir, type)).not.toBeNull();
    }
  });

  it("refuses cached code that fails, requires other modules or exports no function", () => {
    const type = Cas.open(home).putSchema(richSchema);
    const file = join(cacheDir, cacheFileName(type));
    const expected = newProcessCas().validate(type, {});
    const marker = join(home, "ran");
    const bad = [
      'throw new Error("broken");',
      "module.exports = {};",
      "syntax error here (",
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x"); module.exports = () => true;`,
      'const x = require("ajv"); module.exports = () => true;',
      'const r = require("ajv/dist/runtime/re2"); module.exports = () => true;',
    ];
    for (const code of bad) {
      expect(instantiate(code)).toBeNull();
      // Written with a valid header: only the code itself is wrong.
      writeCachedValidator(cacheDir, type, code, AJV_VERSION);
      expect(readCachedValidator(cacheDir, type)).toBeNull();
      expect(existsSync(file)).toBe(false);
      writeCachedValidator(cacheDir, type, code, AJV_VERSION);
      const cas = newProcessCas();
      expect(counting(() => expect(cas.validate(type, {})).toEqual(expected))).toEqual({
        compiled: 1,
        fromDisk: 0,
      });
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a cache file written for another schema", () => {
    const cas = Cas.open(home);
    const a = cas.putSchema(richSchema);
    const b = cas.putSchema({ type: "string" });
    writeFileSync(join(cacheDir, cacheFileName(b)), readFileSync(join(cacheDir, cacheFileName(a))));
    expect(readCachedValidator(cacheDir, b)).toBeNull();
    expect(newProcessCas().validate(b, 1).errors).toEqual(["/: must be string"]);
  });

  it("writes nothing for a schema that does not compile", () => {
    const error = (() => {
      try {
        Cas.open(home).putSchema({ type: "object", properties: { a: { type: "no-such-type" } } });
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(isUwfError(error) && error.code).toBe("SCHEMA_INVALID");
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toEqual([]);
  });

  it("keeps no disk cache for a store built from a bare backend", () => {
    const cas = new Cas(createFsBackend(join(home, "cas")));
    const step = cas.builtin("step");
    cas.validate(step, {});
    expect(existsSync(join(home, "cache"))).toBe(false);
  });

  it("does not break a command when the cache cannot be written", () => {
    writeFileSync(join(home, "cache"), "a file where the cache directory should be");
    const cas = Cas.open(home);
    const type = cas.putSchema(richSchema);
    expect(cas.validate(type, {}).valid).toBe(false);
  });

  it("keeps the cache for its owner only", () => {
    const type = Cas.open(home).putSchema(richSchema);
    Cas.open(home).validate(type, {});
    expect(statSync(join(home, "cache")).mode & 0o777).toBe(0o700);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, cacheFileName(type))).mode & 0o777).toBe(0o600);
  });

  it("looks files up under the installed ajv version", () => {
    const installed = (createRequire(import.meta.url)("ajv/package.json") as { version: string })
      .version;
    expect(AJV_VERSION).toBe(installed);
    expect(cacheFileName("7MSKT4YB69AED")).toBe(`7MSKT4YB69AED.v1-ajv${installed}.cjs`);
  });
});
