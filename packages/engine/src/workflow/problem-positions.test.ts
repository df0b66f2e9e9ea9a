import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { loadAndValidate } from "./resolve.js";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Write files (path → content) under a fresh temp folder; returns the folder's real path. */
function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "uwf-positions-")));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const ROLES = [
  "writer:",
  "  frontmatter:",
  "    type: object",
  "    properties: { $status: { const: done }, page: { type: string } }",
  "    required: [$status, page]",
  "",
].join("\n");

const WORKFLOW = [
  "name: w",
  "roles: !include roles.yaml",
  "graph:",
  "  $START:",
  "    new: { role: writer, prompt: Write. }",
  "    resume: { role: writer, prompt: Go on. }",
  "  writer:",
  "    done: { role: $END, prompt: Done. }",
  "",
].join("\n");

describe("where a workflow problem is written", () => {
  test("a problem in the top-level file: its line and column, with code and path", async () => {
    const root = tree({
      "w.yaml": WORKFLOW.replace("role: $END", "role: reviwer"),
      "roles.yaml": ROLES,
    });
    const loaded = await loadAndValidate(join(root, "w.yaml"));
    expect(loaded.errors).toEqual(['w.yaml:8:13: edge writer→done: unknown target role "reviwer"']);
    expect(loaded.problems).toEqual([
      {
        severity: "error",
        code: "UNKNOWN_ROLE",
        message: 'edge writer→done: unknown target role "reviwer"',
        path: ["graph", "writer", "done", "role"],
        file: "w.yaml",
        line: 8,
        column: 13,
      },
    ]);
  });

  test("a problem in an included file: that file's line and column", async () => {
    const root = tree({
      "w.yaml": WORKFLOW,
      "roles.yaml": ROLES.replace("  frontmatter:", "  goal: [1]\n  frontmatter:"),
    });
    const loaded = await loadAndValidate(join(root, "w.yaml"));
    expect(loaded.errors).toEqual(['roles.yaml:2:3: role "writer": "goal" must be a string']);
    expect(loaded.problems[0]).toMatchObject({ file: "roles.yaml", line: 2, column: 3 });
  });

  test("warnings are placed too; a valid file has no problems to place", async () => {
    const warned = tree({
      "w.yaml": WORKFLOW,
      "roles.yaml": ROLES.replace("type: object", "type: object\n    requird: [page]"),
    });
    const loaded = await loadAndValidate(join(warned, "w.yaml"));
    expect(loaded.valid).toBe(true);
    expect(loaded.warnings).toEqual([
      'roles.yaml:4:5: role "writer" frontmatter: unknown JSON Schema keyword "requird" at the top (did you mean "required"?); ajv ignores it',
    ]);
    expect(loaded.problems).toMatchObject([{ severity: "warning", code: "SCHEMA" }]);

    // A keyword inside a property is found where it is written, in a flow mapping too.
    const nested = tree({
      "w.yaml": WORKFLOW,
      "roles.yaml": ROLES.replace("page: { type: string }", "page: { type: string, minLenght: 1 }"),
    });
    expect((await loadAndValidate(join(nested, "w.yaml"))).problems).toMatchObject([
      { path: ["roles", "writer", "frontmatter", "properties", "page", "minLenght"], line: 4 },
    ]);
    expect((await loadAndValidate(join(nested, "w.yaml"))).warnings[0]).toMatch(
      /^roles\.yaml:4:67: /,
    );

    const clean = tree({ "w.yaml": WORKFLOW, "roles.yaml": ROLES });
    expect((await loadAndValidate(join(clean, "w.yaml"))).problems).toEqual([]);
  });

  test("a file that cannot be read keeps the reader's place", async () => {
    const root = tree({ "w.yaml": "name: w\nroles: { a: b: c }\n" });
    const loaded = await loadAndValidate(join(root, "w.yaml"));
    expect(loaded.problems).toMatchObject([{ code: "FILE", file: "w.yaml", line: 2 }]);
    expect(loaded.errors[0]).toMatch(/^w\.yaml:2:\d+: /);
  });
});
