import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, openTempStore } from "../__testing__/store-fixtures.js";
import type { Store } from "../api.js";
import type { Cas } from "./cas.js";

let store: Store;
let cas: Cas;

let removeTemp: () => Promise<void>;

beforeEach(async () => {
  ({ store, remove: removeTemp } = await openTempStore("cas"));
  cas = store.cas;
});
afterEach(() => removeTemp());

const planSchema = {
  type: "object",
  required: ["$status", "plan"],
  properties: { $status: { type: "string" }, plan: { type: "string" } },
};

describe("validation", () => {
  it("drops undefined members before validating and hashing", async () => {
    const schema = await cas.putSchema({
      type: "object",
      properties: { note: { type: "string" } },
    });
    expect(await cas.put(schema, { note: undefined })).toBe(await cas.put(schema, {}));
  });

  it("rejects a payload that does not match its schema, listing every error", async () => {
    const schema = await cas.putSchema(planSchema);
    const error = await caught(() => cas.put(schema, { $status: 1, plan: 2 }));
    expect(error.code).toBe("NODE_INVALID");
    expect(error.details?.errors).toEqual(["/$status: must be string", "/plan: must be string"]);
    expect(error.message).toContain("/plan: must be string");
    expect(error.hint).toContain(`uwf cas get ${schema}`);
  });

  it("validates against a schema in memory synchronously, without writing it", async () => {
    const { hash, validate } = cas.schemaValidator(planSchema);
    expect(hash).toBe(cas.prepareSchema(planSchema).hash);
    expect(validate({ $status: "ok", plan: "p" })).toEqual({ valid: true, errors: [] });
    expect(validate({ $status: "ok" }).valid).toBe(false);
    expect(await cas.backend.has(hash)).toBe(false);
    // Known to this process: nodes of its type validate before the schema is stored.
    const error = await caught(() => cas.put(hash, { $status: "ok" }));
    expect(error.code).toBe("NODE_INVALID");
  });

  it("refuses a schema ajv cannot compile, and a payload that is not JSON", async () => {
    expect((await caught(() => cas.putSchema({ type: "nonsense" }))).code).toBe("SCHEMA_INVALID");
    expect((await caught(() => cas.putSchema({ $ref: "#/definitions/missing" }))).code).toBe(
      "SCHEMA_INVALID",
    );
    expect((await caught(() => cas.putSchema([] as never))).code).toBe("SCHEMA_INVALID");
    const schema = await cas.putSchema({});
    expect((await caught(() => cas.put(schema, { n: 10n }))).code).toBe("NODE_INVALID");
  });

  it("accepts schema versions that reuse one $id", async () => {
    const v1 = await cas.putSchema({ $id: "urn:role:plan", type: "string" });
    const v2 = await cas.putSchema({ $id: "urn:role:plan", type: "number" });
    expect((await cas.validate(v1, "x")).valid).toBe(true);
    expect((await cas.validate(v2, "x")).valid).toBe(false);
  });

  it("refuses a node whose type is neither a schema nor a hash", async () => {
    const error = await caught(() => cas.putNode({ type: "lowercase", payload: 1 }));
    expect(error.code).toBe("NODE_INVALID");
  });
});

describe("typed reads", () => {
  it("checks the kind of node a typed read expects", async () => {
    const text = await cas.putText("hi");
    expect(await cas.getPayload<string>(text, "text")).toBe("hi");
    const error = await caught(() => cas.getPayload(text, "step"));
    expect(error.code).toBe("NODE_INVALID");
    expect(error.message).toBe(`node ${text} is a text node, not a step node`);
    expect((await caught(() => cas.getText(cas.builtin("step")))).message).toContain(
      "is a schema node",
    );
  });

  it("reads every edition of a kind as that kind, and a later edition only as itself", async () => {
    const role = await cas.putSchema(planSchema);
    const workflow = {
      name: "w",
      roles: { planner: { frontmatter: role } },
      graph: {},
    };
    const first = await cas.put(cas.builtin("workflow"), workflow);
    const second = await cas.put(cas.builtin("workflow2"), { ...workflow, inputs: role });
    expect(await cas.getPayload(first, "workflow")).toEqual(workflow);
    expect(await cas.getPayload(second, "workflow")).toEqual({ ...workflow, inputs: role });
    expect(cas.isKind(cas.builtin("workflow2"), "workflow")).toBe(true);
    expect((await caught(() => cas.getPayload(first, "workflow2"))).code).toBe("NODE_INVALID");
    // The first edition refuses the new field: old readers are never handed what they cannot read.
    expect(
      (await caught(() => cas.put(cas.builtin("workflow"), { ...workflow, inputs: role }))).code,
    ).toBe("NODE_INVALID");
  });
});

describe("hashes", () => {
  it("rejects a string that is not a hash, saying what a hash looks like", async () => {
    for (const bad of ["abc", "../../etc/pa", "0123456789ABCDE", "0123456789ABI"]) {
      const error = await caught(() => cas.get(bad));
      expect(error.code).toBe("HASH_INVALID");
      expect(error.message).toContain("13 upper-case Crockford Base32 characters");
    }
    expect((await caught(() => cas.get("7msKt4yb69aed"))).hint).toBe(
      "hashes are upper-case: did you mean 7MSKT4YB69AED?",
    );
    expect((await caught(() => cas.has("nope"))).code).toBe("HASH_INVALID");
    expect((await caught(() => cas.put("nope", {}))).code).toBe("HASH_INVALID");
  });
});
