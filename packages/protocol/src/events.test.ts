import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVENT_LEVELS, type EventName, eventSchemas, isEventName } from "./events.js";
import { renderEventsReference } from "./events-reference.js";
import { unsupportedKeywords } from "./from-schema.js";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

describe("the event schemas", () => {
  it("name each event as its key, and lead with `event` and `ts`", () => {
    for (const [name, schema] of Object.entries(eventSchemas())) {
      expect(schema.properties.event).toEqual({ const: name });
      expect(schema.required.slice(0, 2)).toEqual(["event", "ts"]);
      expect(schema.description).not.toBe("");
    }
  });

  it("use only keywords the derived types read, and give every event a level", () => {
    for (const [name, schema] of Object.entries(eventSchemas())) {
      expect(unsupportedKeywords(schema), name).toEqual([]);
      expect(isEventName(name)).toBe(true);
    }
    expect(Object.keys(EVENT_LEVELS).sort()).toEqual(Object.keys(eventSchemas()).sort());
    expect(isEventName("toString")).toBe(false);
  });

  it("docs/events.md is what the schemas generate (run `pnpm build && pnpm docs:events`)", () => {
    const reference = renderEventsReference();
    expect(read("docs/events.md")).toBe(reference);
    for (const name of Object.keys(eventSchemas()) as EventName[]) {
      expect(reference).toContain(`## ${name}`);
    }
  });
});
