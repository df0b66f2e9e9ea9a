import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, hashBytes, isUwfError, type UwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Cas } from "./cas.js";
import { createFsBackend } from "./fs-backend.js";

let home: string;
let cas: Cas;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-cas-"));
  cas = Cas.open(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function caught(fn: () => unknown): UwfError {
  try {
    fn();
  } catch (error) {
    if (isUwfError(error)) return error;
    throw error;
  }
  throw new Error("expected a UwfError");
}

const planSchema = {
  type: "object",
  required: ["$status", "plan"],
  properties: { $status: { type: "string" }, plan: { type: "string" } },
};

describe("put and get", () => {
  it("round-trips a node and stores exactly the hashed canonical bytes", () => {
    const schema = cas.putSchema(planSchema);
    const hash = cas.put(schema, { plan: "write tests", $status: "done" });
    expect(cas.get(hash)).toEqual({
      type: schema,
      payload: { $status: "done", plan: "write tests" },
    });
    const file = join(home, "cas", hash.slice(0, 2), `${hash}.json`);
    const bytes = readFileSync(file);
    expect(hashBytes(bytes)).toBe(hash);
    expect(bytes.toString()).toBe(
      canonicalJson({ type: schema, payload: { plan: "write tests", $status: "done" } }),
    );
  });

  it("gives the same hash for the same content, whatever the key order or store", () => {
    const other = Cas.open(join(home, "other-home"));
    const a = cas.put(cas.putSchema(planSchema), { $status: "done", plan: "p" });
    const b = other.put(other.putSchema({ ...planSchema }), { plan: "p", $status: "done" });
    expect(a).toBe(b);
    expect(
      cas.putNode({ type: cas.putSchema(planSchema), payload: { plan: "p", $status: "done" } }),
    ).toEqual({
      hash: a,
      created: false,
    });
  });

  it("pins the hash format: a text node hashes the same forever", () => {
    expect(cas.builtin("text")).toBe("BFPCY5DWEPBVJ");
    expect(cas.putText("hello")).toBe("7MSKT4YB69AED");
    expect(cas.getText("7MSKT4YB69AED")).toBe("hello");
  });

  it("treats writing an existing hash as a no-op", () => {
    const node = { type: cas.builtin("text"), payload: "same" };
    const first = cas.putNode(node);
    const file = join(home, "cas", first.hash.slice(0, 2), `${first.hash}.json`);
    writeFileSync(file, readFileSync(file)); // same bytes, new mtime: the second put must not touch it
    const before = readFileSync(file);
    expect(first.created).toBe(true);
    expect(cas.putNode(node)).toEqual({ hash: first.hash, created: false });
    expect(readFileSync(file)).toEqual(before);
    expect(createFsBackend(join(home, "cas")).write(first.hash, Buffer.from("other"))).toBe(false);
    expect(readFileSync(file)).toEqual(before);
  });

  it("drops undefined members before validating and hashing", () => {
    const schema = cas.putSchema({ type: "object", properties: { note: { type: "string" } } });
    expect(cas.put(schema, { note: undefined })).toBe(cas.put(schema, {}));
  });

  it("rejects a payload that does not match its schema, listing every error", () => {
    const schema = cas.putSchema(planSchema);
    const error = caught(() => cas.put(schema, { $status: 1, plan: 2 }));
    expect(error.code).toBe("NODE_INVALID");
    expect(error.details?.errors).toEqual(["/$status: must be string", "/plan: must be string"]);
    expect(error.message).toContain("/plan: must be string");
  });

  it("refuses a schema ajv cannot compile", () => {
    const error = caught(() => cas.putSchema({ type: "nonsense" }));
    expect(error.code).toBe("SCHEMA_INVALID");
    expect(caught(() => cas.putSchema({ $ref: "#/definitions/missing" })).code).toBe(
      "SCHEMA_INVALID",
    );
  });

  it("accepts schema versions that reuse one $id", () => {
    const v1 = cas.putSchema({ $id: "urn:role:plan", type: "string" });
    const v2 = cas.putSchema({ $id: "urn:role:plan", type: "number" });
    expect(cas.validate(v1, "x").valid).toBe(true);
    expect(cas.validate(v2, "x").valid).toBe(false);
  });

  it("checks the type of typed reads", () => {
    const text = cas.putText("hi");
    expect(cas.getPayload<string>(text, "text")).toBe("hi");
    const error = caught(() => cas.getPayload(text, "step"));
    expect(error.code).toBe("NODE_INVALID");
    expect(error.message).toBe(`node ${text} is a text node, not a step node`);
    expect(caught(() => cas.getText(cas.builtin("step"))).message).toContain("is a schema node");
  });
});

describe("reading a damaged or missing node", () => {
  it("rejects a string that is not a hash, saying what a hash looks like", () => {
    for (const bad of ["abc", "../../etc/pa", "0123456789ABCDE", "0123456789ABI"]) {
      const error = caught(() => cas.get(bad));
      expect(error.code).toBe("HASH_INVALID");
      expect(error.message).toContain("13 upper-case Crockford Base32 characters");
    }
    expect(caught(() => cas.get("7msKt4yb69aed")).hint).toBe(
      "hashes are upper-case: did you mean 7MSKT4YB69AED?",
    );
    expect(caught(() => cas.has("nope")).code).toBe("HASH_INVALID");
  });

  it("reports a missing node", () => {
    const error = caught(() => cas.get("0000000000000"));
    expect(error.code).toBe("CAS_NOT_FOUND");
    expect(cas.has("0000000000000")).toBe(false);
  });

  it("names the file of a tampered node", () => {
    const hash = cas.putText("original");
    const file = join(home, "cas", hash.slice(0, 2), `${hash}.json`);
    writeFileSync(file, readFileSync(file, "utf8").replace("original", "tampered"));
    const error = caught(() => cas.get(hash));
    expect(error.code).toBe("CAS_CORRUPT");
    expect(error.message).toContain(file);
    expect(error.message).toContain("does not match its name");
  });

  it("names the file of a truncated node", () => {
    const hash = cas.putText("a longer text that gets cut");
    const file = join(home, "cas", hash.slice(0, 2), `${hash}.json`);
    writeFileSync(file, readFileSync(file).subarray(0, 10));
    expect(caught(() => cas.get(hash)).message.startsWith(`${file}: content does not match`)).toBe(
      true,
    );
    writeFileSync(file, "");
    expect(caught(() => cas.get(hash)).code).toBe("CAS_CORRUPT");
  });

  it("rejects content that hashes right but is not a { type, payload } node", () => {
    const backend = createFsBackend(join(home, "cas"));
    for (const content of ["not json", '{"type":"schema"}', '{"payload":1,"type":"lowercase"}']) {
      const hash = hashBytes(content);
      backend.write(hash, Buffer.from(content));
      const error = caught(() => cas.get(hash));
      expect(error.code).toBe("CAS_CORRUPT");
      expect(error.message).toContain(backend.locate(hash));
    }
  });
});
