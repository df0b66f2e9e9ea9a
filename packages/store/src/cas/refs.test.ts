/**
 * Which payload fields hold hashes, as a node's schema says. `refs` and `walk` over a store are
 * in the conformance suite (__testing__/conformance-cas.ts).
 */
import { describe, expect, it } from "vitest";
import { collectRefs } from "./refs.js";

describe("collectRefs", () => {
  it("follows items, additionalProperties, allOf and the matching branch of a union", () => {
    const h = (n: number) => `${n}`.padStart(13, "0");
    const ref = { type: "string", format: "cas-ref" };
    const schema = {
      type: "object",
      properties: {
        list: { type: "array", items: ref },
        map: { type: "object", additionalProperties: { $ref: "#/definitions/ref" } },
        both: { allOf: [ref] },
        variant: {
          oneOf: [
            { type: "object", properties: { kind: { const: "file" }, id: ref } },
            { type: "object", properties: { kind: { const: "name" }, id: { type: "string" } } },
          ],
        },
      },
      definitions: { ref },
    };
    const payload = {
      list: [h(1), h(2)],
      map: { a: h(3), b: null },
      both: h(4),
      variant: { kind: "name", id: h(5) },
      other: h(6),
    };
    expect(collectRefs(schema, payload)).toEqual([h(1), h(2), h(3), h(4)]);
    expect(collectRefs(schema, { variant: { kind: "file", id: h(7) } })).toEqual([h(7)]);
  });
});
