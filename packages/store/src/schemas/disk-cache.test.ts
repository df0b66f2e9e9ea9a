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
import { createFsCasBackend } from "../cas/fs-backend.js";
import { openStore } from "../open-store.js";
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

/** The Cas of a store on `home`. */
async function openCas(): Promise<Cas> {
  return (await openStore({ home })).cas;
}

/** A fresh Cas over the same home, as a new process would open it (no validator in memory). */
function newProcessCas(): Promise<Cas> {
  validatorCacheInternals.forget();
  return openCas();
}

/** Compiles and disk reads while `fn` runs. */
async function counting(fn: () => unknown): Promise<{ compiled: number; fromDisk: number }> {
  const before = validatorCacheInternals.counts();
  await fn();
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
  it("a later process validates from the disk cache without compiling", async () => {
    const first = await openCas();
    const type = await first.putSchema(richSchema);
    const payload = {
      $status: "done",
      plan: "ship",
      ref: "7MSKT4YB69AED",
      choice: "a",
      nested: { inner: { name: "x" } },
    };
    expect(readdirSync(cacheDir)).toEqual([cacheFileName(type)]);

    const second = await newProcessCas();
    let hash = "";
    const counts = await counting(async () => {
      hash = await second.put(type, payload);
    });
    expect(counts).toEqual({ compiled: 0, fromDisk: 1 });
    expect((await second.get(hash)).payload).toEqual(payload);

    // A built-in schema too: the first process compiles it, the next reads it.
    const step = second.builtin("step");
    expect(await counting(() => second.validate(step, {}))).toEqual({ compiled: 1, fromDisk: 0 });
    const third = await newProcessCas();
    expect(await counting(() => third.validate(step, {}))).toEqual({ compiled: 0, fromDisk: 1 });
  });

  it("gives the same errors from a cached validator as from a freshly compiled one", async () => {
    const type = await (await openCas()).putSchema(richSchema);
    validatorCacheInternals.forget();
    const fresh = validatorFor(type, richSchema);
    const expected = invalidPayloads.map((payload) => runValidator(fresh, payload));

    const cas = await newProcessCas();
    const counts = await counting(async () => {
      const actual = await Promise.all(
        invalidPayloads.map((payload) => cas.validate(type, payload)),
      );
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

  it("caches draft 2020-12 schemas", async () => {
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
    const type = await (await openCas()).putSchema(schema);
    const payloads = [{ pair: ["7MSKT4YB69AED", 1] }, { pair: ["nope", 1.5, 3] }, { other: 1 }];
    validatorCacheInternals.forget();
    const fresh = validatorFor(type, schema);
    const expected = payloads.map((payload) => runValidator(fresh, payload));
    expect(expected.map((result) => result.valid)).toEqual([true, false, false]);
    expect(expected[2]!.errors).toEqual(["/: must NOT have unevaluated properties"]);

    const cas = await newProcessCas();
    const counts = await counting(async () => {
      expect(await Promise.all(payloads.map((payload) => cas.validate(type, payload)))).toEqual(
        expected,
      );
    });
    expect(counts).toEqual({ compiled: 0, fromDisk: 1 });
  });

  it("checks standard formats and cas-ref from the disk cache as when compiled", async () => {
    const schema: JsonSchema = {
      type: "object",
      properties: {
        to: { type: "string", format: "email" },
        at: { type: "string", format: "date-time" },
        count: { type: "integer", format: "int32" },
        ref: { type: "string", format: "cas-ref" },
      },
    };
    const type = await (await openCas()).putSchema(schema);
    const payloads = [
      { to: "ada@example.com", at: "2024-02-29T12:30:00Z", count: 1, ref: "7MSKT4YB69AED" },
      { to: "not-an-email", at: "yesterday", count: 2 ** 31, ref: "not a hash" },
    ];
    validatorCacheInternals.forget();
    const fresh = validatorFor(type, schema);
    const expected = payloads.map((payload) => runValidator(fresh, payload));
    expect(expected).toEqual([
      { valid: true, errors: [] },
      {
        valid: false,
        errors: [
          '/at: must match format "date-time"',
          '/count: must match format "int32"',
          '/ref: must match format "cas-ref"',
          '/to: must match format "email"',
        ],
      },
    ]);

    const cas = await newProcessCas();
    const counts = await counting(async () => {
      expect(await Promise.all(payloads.map((payload) => cas.validate(type, payload)))).toEqual(
        expected,
      );
    });
    expect(counts).toEqual({ compiled: 0, fromDisk: 1 });
    // Formats are reached through the require shim by name, not copied into the cached code.
    const code = readFileSync(join(cacheDir, cacheFileName(type)), "utf8");
    expect(code).toContain('require("uwf:validator-formats").email');
    expect(code).not.toContain("[a-z0-9!#$%&'*+/=?^_`{|}~-]");
  });

  it("recompiles in place of a damaged cache file, with the same result", async () => {
    const type = await (await openCas()).putSchema(richSchema);
    const file = join(cacheDir, cacheFileName(type));
    const good = readFileSync(file, "utf8");
    const expected: { valid: boolean; errors: string[] }[] = [];
    for (const payload of invalidPayloads) {
      expected.push(await (await newProcessCas()).validate(type, payload));
    }
    const damaged = [
      good.slice(0, Math.floor(good.length / 2)), // truncated
      good.slice(0, good.lastIndexOf("function validate")), // cut after a whole statement
      good.replace("must be", "must bee"), // edited
      good.replace("must be", "must BE"), // edited, same length: only the checksum sees it
      "", // empty
      "garbage without a header",
    ];
    for (const text of damaged) {
      writeFileSync(file, text);
      const cas = await newProcessCas();
      const counts = await counting(async () => {
        expect(
          await Promise.all(invalidPayloads.map((payload) => cas.validate(type, payload))),
        ).toEqual(expected);
      });
      expect(counts).toEqual({ compiled: 1, fromDisk: 0 });
      // Rewritten whole by the recompiling process.
      expect(readCachedValidator(cacheDir, type)).not.toBeNull();
    }
  });

  it("refuses cached code that fails, requires other modules or exports no function", async () => {
    const type = await (await openCas()).putSchema(richSchema);
    const file = join(cacheDir, cacheFileName(type));
    const expected = await (await newProcessCas()).validate(type, {});
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
      const cas = await newProcessCas();
      expect(
        await counting(async () => expect(await cas.validate(type, {})).toEqual(expected)),
      ).toEqual({ compiled: 1, fromDisk: 0 });
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a cache file written for another schema", async () => {
    const cas = await openCas();
    const a = await cas.putSchema(richSchema);
    const b = await cas.putSchema({ type: "string" });
    writeFileSync(join(cacheDir, cacheFileName(b)), readFileSync(join(cacheDir, cacheFileName(a))));
    expect(readCachedValidator(cacheDir, b)).toBeNull();
    expect((await (await newProcessCas()).validate(b, 1)).errors).toEqual(["/: must be string"]);
  });

  it("writes nothing for a schema that does not compile", async () => {
    const cas = await openCas();
    const schemas: JsonSchema[] = [
      { type: "object", properties: { a: { type: "no-such-type" } } },
      { type: "object", properties: { a: { type: "string", pattern: "([" } } },
    ];
    for (const schema of schemas) {
      const error = await cas.putSchema(schema).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(isUwfError(error) && error.code).toBe("SCHEMA_INVALID");
    }
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toEqual([]);
  });

  it("keeps no disk cache for a store built from a bare backend", async () => {
    const cas = new Cas(createFsCasBackend(join(home, "cas")));
    const step = cas.builtin("step");
    await cas.validate(step, {});
    expect(existsSync(join(home, "cache"))).toBe(false);
  });

  it("does not break a command when the cache cannot be written", async () => {
    writeFileSync(join(home, "cache"), "a file where the cache directory should be");
    const cas = await openCas();
    const type = await cas.putSchema(richSchema);
    expect((await cas.validate(type, {})).valid).toBe(false);
  });

  it("keeps the cache for its owner only", async () => {
    const type = await (await openCas()).putSchema(richSchema);
    await (await openCas()).validate(type, {});
    expect(statSync(join(home, "cache")).mode & 0o777).toBe(0o700);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, cacheFileName(type))).mode & 0o777).toBe(0o600);
  });

  it("looks files up under the installed ajv version", () => {
    const installed = (createRequire(import.meta.url)("ajv/package.json") as { version: string })
      .version;
    expect(AJV_VERSION).toBe(installed);
    expect(cacheFileName("7MSKT4YB69AED")).toBe(`7MSKT4YB69AED.v4-ajv${installed}.cjs`);
  });
});
