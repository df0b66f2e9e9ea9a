import { BUILTIN_SCHEMAS, type BuiltinNodeKind, SCHEMA_TYPE } from "@united-workforce/protocol";
import { canonicalJson, hashBytes } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { BUILTIN_HASHES, BUILTIN_KINDS, builtinKindOf, builtinSchemaNode } from "./builtins.js";

describe("built-in schema nodes", () => {
  it("have the hashes of their schemas: the pinned table matches what hashing gives", () => {
    for (const kind of Object.keys(BUILTIN_SCHEMAS) as BuiltinNodeKind[]) {
      const computed = hashBytes(
        canonicalJson({ type: SCHEMA_TYPE, payload: BUILTIN_SCHEMAS[kind] }),
      );
      expect(BUILTIN_HASHES[kind], kind).toBe(computed);
      expect(hashBytes(builtinSchemaNode(kind).bytes), kind).toBe(computed);
    }
    expect(Object.keys(BUILTIN_HASHES).sort()).toEqual([...BUILTIN_KINDS].sort());
  });

  it("are recognised by hash, and nothing else is", () => {
    expect(builtinKindOf(BUILTIN_HASHES.step)).toBe("step");
    expect(builtinKindOf("0000000000000")).toBeNull();
  });
});
