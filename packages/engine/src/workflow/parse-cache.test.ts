import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { UwfError } from "@united-workforce/util";
import { afterEach, describe, expect, test } from "vitest";
import { loadWorkflowFile } from "./load.js";
import { parsedWorkflowCacheDir } from "./parse-cache.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Files under a fresh folder, and a cache folder beside them. */
function tree(files: Record<string, string>): { root: string; cacheDir: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "uwf-parse-cache-")));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, "wf", path)), { recursive: true });
    writeFileSync(join(root, "wf", path), content);
  }
  return { root: join(root, "wf"), cacheDir: join(root, "cache", "workflows") };
}

const entries = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

const MAIN = [
  "name: cached",
  "roles:",
  "  writer:",
  "    goal: !include goal.md",
  "    frontmatter: !include schema.yaml",
  "shared: &s { a: 1, list: [x, 2, true, null] }",
  "again: *s",
  "graph: { $START: { new: { role: writer, prompt: go } } }",
  "",
].join("\n");

function errorsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(UwfError);
    return (error as UwfError).details?.errors as string[];
  }
  throw new Error("expected the load to fail");
}

describe("the parsed-workflow cache", () => {
  test("lives beside the validator cache", () => {
    expect(parsedWorkflowCacheDir("/h/cache/validators")).toBe("/h/cache/workflows");
    expect(parsedWorkflowCacheDir(undefined)).toBeUndefined();
  });

  test("a load from the cache gives the same workflow, includes and aliases expanded", () => {
    const { root, cacheDir } = tree({
      "main.yaml": MAIN,
      "goal.md": "Write it.\n",
      "schema.yaml": "type: object\nproperties: { page: !include page.json }\n",
      "page.json": '{ "type": "string" }',
    });
    const file = join(root, "main.yaml");
    const uncached = loadWorkflowFile(file);
    const first = loadWorkflowFile(file, { cacheDir });
    // One entry per YAML file read (the top level and schema.yaml); JSON is not cached.
    expect(entries(cacheDir)).toHaveLength(2);
    // Private, like the rest of the home: workflows may hold prompts worth keeping to oneself.
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    for (const name of entries(cacheDir)) {
      expect(statSync(join(cacheDir, name)).mode & 0o777).toBe(0o600);
    }
    const second = loadWorkflowFile(file, { cacheDir });
    expect(first).toEqual(uncached);
    expect(second).toEqual(uncached);
    expect(second.definition.again).toEqual({ a: 1, list: ["x", 2, true, null] });
    expect((second.definition.roles as { writer: unknown }).writer).toEqual({
      goal: "Write it.\n",
      frontmatter: { type: "object", properties: { page: { type: "string" } } },
    });
    // An included file's change is seen at once: its entry holds the old text.
    writeFileSync(join(root, "goal.md"), "Write it again.\n");
    writeFileSync(join(root, "schema.yaml"), "type: object\n");
    const third = loadWorkflowFile(file, { cacheDir });
    expect((third.definition.roles as { writer: unknown }).writer).toEqual({
      goal: "Write it again.\n",
      frontmatter: { type: "object" },
    });
  });

  test("an entry is used only for the very text it was made from", () => {
    const { root, cacheDir } = tree({ "main.yaml": "name: before\nroles: {}\ngraph: {}\n" });
    const file = join(root, "main.yaml");
    loadWorkflowFile(file, { cacheDir });
    const [entry] = entries(cacheDir);
    const path = join(cacheDir, entry!);
    // The entry is what the next load uses: an edited value (same text) shows through.
    const stored = JSON.parse(readFileSync(path, "utf8"));
    stored.value.name = "from-cache";
    writeFileSync(path, JSON.stringify(stored));
    expect(loadWorkflowFile(file, { cacheDir }).definition.name).toBe("from-cache");
    // A changed file (one character) is parsed again and its entry replaced.
    writeFileSync(file, "name: after_\nroles: {}\ngraph: {}\n");
    expect(loadWorkflowFile(file, { cacheDir }).definition.name).toBe("after_");
    expect(loadWorkflowFile(file, { cacheDir }).definition.name).toBe("after_");
    // A damaged entry is ignored.
    writeFileSync(path, "{ not json");
    expect(loadWorkflowFile(file, { cacheDir }).definition.name).toBe("after_");
    writeFileSync(path, JSON.stringify({ format: 1, source: "x", value: 1, includes: "no" }));
    expect(loadWorkflowFile(file, { cacheDir }).definition.name).toBe("after_");
  });

  test("an entry whose include places do not fit the value is ignored", () => {
    const { root, cacheDir } = tree({ "main.yaml": MAIN, "goal.md": "g\n", "schema.yaml": "{}\n" });
    const file = join(root, "main.yaml");
    const expected = loadWorkflowFile(file, { cacheDir }).definition;
    for (const name of entries(cacheDir)) {
      const path = join(cacheDir, name);
      const stored = JSON.parse(readFileSync(path, "utf8"));
      if (stored.includes.length === 0) continue;
      stored.includes[0].at = ["roles", "nobody", "goal"];
      writeFileSync(path, JSON.stringify(stored));
    }
    expect(loadWorkflowFile(file, { cacheDir }).definition).toEqual(expected);
  });

  test("files with problems are never cached: every message still comes from the parser", () => {
    const { root, cacheDir } = tree({
      "bad.yaml": "name: bad\nroles: [\n",
      "tag.yaml": "name: x\ngoal: !incldue goal.md\n",
    });
    for (const name of ["bad.yaml", "tag.yaml"]) {
      const file = join(root, name);
      const plain = errorsOf(() => loadWorkflowFile(file));
      expect(errorsOf(() => loadWorkflowFile(file, { cacheDir }))).toEqual(plain);
      expect(errorsOf(() => loadWorkflowFile(file, { cacheDir }))).toEqual(plain);
    }
    expect(entries(cacheDir)).toEqual([]);
  });

  test("values JSON cannot carry (.nan, .inf, -0, circular aliases) are parsed every time", () => {
    const { root, cacheDir } = tree({
      "numbers.yaml": "name: n\nroles: {}\ngraph: {}\nx: [.nan, .inf, -.inf, -0]\n",
      "circle.yaml": "name: c\nroles: {}\ngraph: &g { self: *g }\n",
    });
    loadWorkflowFile(join(root, "numbers.yaml"), { cacheDir });
    const numbers = loadWorkflowFile(join(root, "numbers.yaml"), { cacheDir });
    expect(numbers.definition.x).toEqual([Number.NaN, Infinity, -Infinity, -0]);
    expect(Object.is((numbers.definition.x as number[])[3], -0)).toBe(true);
    const circle = errorsOf(() => loadWorkflowFile(join(root, "circle.yaml"), { cacheDir }));
    expect(circle.join("\n")).toContain("circular");
    expect(errorsOf(() => loadWorkflowFile(join(root, "circle.yaml"), { cacheDir }))).toEqual(
      circle,
    );
    expect(entries(cacheDir)).toEqual([]);
  });

  test("a key named __proto__ stays data through the cache", () => {
    const { root, cacheDir } = tree({
      "proto.yaml": 'name: p\nroles: {}\ngraph: {}\nmeta: { "__proto__": { polluted: true } }\n',
    });
    const file = join(root, "proto.yaml");
    const first = loadWorkflowFile(file, { cacheDir }).definition;
    const second = loadWorkflowFile(file, { cacheDir }).definition;
    expect(entries(cacheDir)).toHaveLength(1);
    expect(second).toEqual(first);
    const meta = second.meta as Record<string, unknown>;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.hasOwn(meta, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("an unwritable cache folder costs nothing but time", () => {
    const { root } = tree({ "main.yaml": "name: w\nroles: {}\ngraph: {}\n" });
    const blocker = join(root, "not-a-folder");
    writeFileSync(blocker, "");
    const file = join(root, "main.yaml");
    expect(loadWorkflowFile(file, { cacheDir: join(blocker, "cache") }).definition.name).toBe("w");
  });
});
