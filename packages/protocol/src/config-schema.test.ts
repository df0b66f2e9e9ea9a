import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_SCHEMA, configSchemaJson } from "./config-schema.js";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

/** Every key path the schema names, with `<name>` where any name goes (`agents.<name>.model`). */
function keyPaths(schema: Record<string, unknown>, prefix = ""): string[] {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  const additional = schema.additionalProperties as Record<string, unknown> | undefined;
  const paths: string[] = [];
  for (const [key, inner] of Object.entries(properties ?? {})) {
    const path = `${prefix}${key}`;
    const below = keyPaths(inner, `${path}.`);
    paths.push(...(below.length > 0 ? below : [path]));
  }
  if (additional !== undefined && typeof additional === "object") {
    const path = `${prefix}<name>`;
    const below = keyPaths(additional, `${path}.`);
    paths.push(...(below.length > 0 ? below : [path]));
  }
  return paths;
}

describe("config schema docs", () => {
  it("docs/config.schema.json is what CONFIG_SCHEMA generates (run `pnpm build && pnpm docs:config`)", () => {
    expect(read("docs/config.schema.json")).toBe(configSchemaJson());
  });

  it("docs/config.md documents every key the schema names", () => {
    // The docs name placeholders for what they are (`<provider>`, `<workflow>`); any will do.
    const documented = read("docs/config.md").replace(/<[a-zA-Z-]+>/g, "<name>");
    const paths = keyPaths(CONFIG_SCHEMA as unknown as Record<string, unknown>);
    expect(paths).toContain("agents.<name>.env.<name>");
    expect(paths.filter((path) => !documented.includes(`\`${path}\``))).toEqual([]);
  });
});
