import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { UwfError } from "@united-workforce/util";
import { afterEach, describe, expect, test } from "vitest";
import { type LoadWorkflowOptions, loadWorkflowFile, MAX_EXPANDED_VALUES } from "./load.js";
import { MAX_NESTING_DEPTH } from "./parse-source.js";
import { validateWorkflow } from "./validate.js";

const FIXTURES = fileURLToPath(new URL("./__fixtures__/", import.meta.url));

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Write files (path → content) under a fresh temp folder; returns the folder's real path. */
function tree(files: Record<string, string | Buffer>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "uwf-load-")));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** The WORKFLOW_INVALID error loading `file` throws, with its listed errors. */
function loadError(
  file: string,
  options: LoadWorkflowOptions = {},
): { message: string; errors: string[] } {
  try {
    loadWorkflowFile(file, options);
  } catch (error) {
    expect(error).toBeInstanceOf(UwfError);
    const uwf = error as UwfError;
    expect(uwf.code).toBe("WORKFLOW_INVALID");
    expect(uwf.hint).toContain("uwf workflow validate");
    return { message: uwf.message, errors: uwf.details?.errors as string[] };
  }
  throw new Error(`expected loading ${file} to fail`);
}

describe("loadWorkflowFile", () => {
  test("resolves includes: YAML and JSON parsed, other files as strings, nested relative paths", () => {
    const file = join(FIXTURES, "includes", "with-includes.yaml");
    const loaded = loadWorkflowFile(file);
    expect(loaded.definition).toEqual({
      name: "with-includes",
      description: "Writes one page.\n",
      roles: {
        writer: {
          goal: "Write the page the task describes.\n",
          frontmatter: {
            type: "object",
            properties: { $status: { const: "done" }, page: { type: "string" } },
            required: ["$status", "page"],
          },
        },
      },
      graph: {
        $START: {
          new: { role: "writer", prompt: "Write the page." },
          resume: { role: "writer", prompt: "Revise the page." },
        },
        writer: { done: { role: "$END", prompt: "{{{page}}}" } },
      },
    });
    expect(loaded.includes.map((p) => p.slice(loaded.root.length + 1))).toEqual([
      "description.txt",
      "roles/writer.yaml",
      "roles/writer-goal.md",
      "schemas/done.json",
      "graph.json",
    ]);
    const result = validateWorkflow(loaded.definition, { fileName: loaded.path });
    expect(result.errors).toEqual([]);
  });

  test("malformed YAML is reported with line and column", () => {
    const { message, errors } = loadError(join(FIXTURES, "bad-malformed.yaml"));
    expect(errors).toEqual([
      "bad-malformed.yaml:4:11: Nested mappings are not allowed in compact mappings",
    ]);
    expect(message).toBe(
      `invalid workflow "${join(FIXTURES, "bad-malformed.yaml")}": bad-malformed.yaml:4:11: Nested mappings are not allowed in compact mappings`,
    );
  });

  test("a root that is not a mapping, and an empty file", () => {
    expect(loadError(join(FIXTURES, "bad-root.yaml")).errors).toEqual([
      "bad-root.yaml: the top level must be a mapping with name, roles and graph, found a sequence",
    ]);
    expect(loadError(join(FIXTURES, "bad-empty.yaml")).errors).toEqual([
      "bad-empty.yaml: the file is empty: a workflow is a YAML mapping with name, roles and graph",
    ]);
  });

  test("a YAML alias bomb is refused", () => {
    const { errors } = loadError(join(FIXTURES, "bad-alias-bomb.yaml"));
    expect(errors).toEqual([
      "bad-alias-bomb.yaml: refused to expand YAML aliases (Excessive alias count indicates a resource exhaustion attack); a workflow may dereference at most 100 aliases",
    ]);
  });

  test("a few aliases are fine", () => {
    const root = tree({ "w.yaml": "name: w\nshared: &s { a: 1 }\nx: *s\ny: *s\n" });
    expect(loadWorkflowFile(join(root, "w.yaml")).definition).toEqual({
      name: "w",
      shared: { a: 1 },
      x: { a: 1 },
      y: { a: 1 },
    });
  });

  test("a self-containing alias is refused", () => {
    const root = tree({ "w.yaml": "name: w\nx: &x [1, *x]\n" });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      "w.yaml: a YAML alias refers to a node that contains it (a circular structure)",
    ]);
  });

  test("an include escaping the folder with ../ is refused", () => {
    const root = tree({
      "outside.txt": "secret",
      "wf/w.yaml": "name: w\ngoal: !include ../outside.txt\n",
    });
    expect(loadError(join(root, "wf", "w.yaml")).errors).toEqual([
      `w.yaml:2:7: !include "../outside.txt" resolves to "${join(root, "outside.txt")}", outside the workflow folder "${join(root, "wf")}"; includes must stay inside the folder of the workflow file`,
    ]);
  });

  test("an include escaping the folder through a symlink is refused", () => {
    const root = tree({
      "outside.txt": "secret",
      "wf/w.yaml": "name: w\ngoal: !include link.txt\n",
    });
    symlinkSync(join(root, "outside.txt"), join(root, "wf", "link.txt"));
    expect(loadError(join(root, "wf", "w.yaml")).errors).toEqual([
      `w.yaml:2:7: !include "link.txt" resolves through a symlink to "${join(root, "outside.txt")}", outside the workflow folder "${join(root, "wf")}"; includes must stay inside the folder of the workflow file`,
    ]);
  });

  test("a symlink that stays inside the folder is fine", () => {
    const root = tree({
      "wf/parts/goal.md": "Goal.",
      "wf/w.yaml": "name: w\ngoal: !include link.md\n",
    });
    symlinkSync(join(root, "wf", "parts", "goal.md"), join(root, "wf", "link.md"));
    expect(loadWorkflowFile(join(root, "wf", "w.yaml")).definition).toEqual({
      name: "w",
      goal: "Goal.",
    });
  });

  test("an include cycle is reported with its chain", () => {
    const root = tree({
      "w.yaml": "name: w\nroles: !include parts/a.yaml\n",
      "parts/a.yaml": "b: !include b.yaml\n",
      "parts/b.yaml": "a: !include a.yaml\n",
    });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      "include cycle: parts/a.yaml → parts/b.yaml → parts/a.yaml",
    ]);
  });

  test("absolute, missing and mistyped includes; every problem is listed", () => {
    const root = tree({
      "w.yaml": "name: w\na: !include /etc/hostname\nb: !include nope.yaml\nc: !incldue x.yaml\n",
    });
    const { message, errors } = loadError(join(root, "w.yaml"));
    expect(errors).toEqual(["w.yaml:4:4: unknown tag !incldue: did you mean !include?"]);
    expect(message).toContain("w.yaml:4:4: unknown tag !incldue: did you mean !include?");

    const fixed = tree({ "w.yaml": "name: w\na: !include /etc/hostname\nb: !include nope.yaml\n" });
    const second = loadError(join(fixed, "w.yaml"));
    expect(second.errors).toEqual([
      'w.yaml:2:4: !include "/etc/hostname": the include path must be relative to the including file',
      `w.yaml:3:4: !include "nope.yaml": file not found (${join(fixed, "nope.yaml")})`,
    ]);
    expect(second.message).toMatch(
      /^invalid workflow ".*w\.yaml" \(2 errors\):\n {2}- w\.yaml:2:4: !include/,
    );
  });

  test("errors inside an included file name that file", () => {
    const root = tree({
      "w.yaml": "name: w\nroles: !include roles.yaml\n",
      "roles.yaml": "a: [1\n",
      "x.json": "",
    });
    expect(loadError(join(root, "w.yaml")).errors[0]).toMatch(/^roles\.yaml:2:1: /);
    const json = tree({ "w.yaml": "name: w\ngraph: !include g.json\n", "g.json": "{\n  nope }" });
    expect(loadError(join(json, "w.yaml")).errors).toEqual([
      "g.json:2:3: invalid JSON: Expected property name or '}' in JSON at position 4",
    ]);
  });

  test("a missing file is WORKFLOW_NOT_FOUND", () => {
    expect(() => loadWorkflowFile(join(tmpdir(), "uwf-does-not-exist.yaml"))).toThrowError(
      expect.objectContaining({ code: "WORKFLOW_NOT_FOUND" }),
    );
  });

  test("a path missing its extension is answered with the file that has one", () => {
    const root = tree({ "hello.yaml": "name: hello\n" });
    expect(() => loadWorkflowFile(join(root, "hello"))).toThrowError(
      expect.objectContaining({
        code: "WORKFLOW_NOT_FOUND",
        hint: `Did you mean "${join(root, "hello")}.yaml"?`,
      }),
    );
  });

  test("a folder without index.yaml is not found, not an invalid workflow", () => {
    const root = tree({ "notes.txt": "" });
    expect(() => loadWorkflowFile(root)).toThrowError(
      expect.objectContaining({
        code: "WORKFLOW_NOT_FOUND",
        message: `"${root}" is a directory without index.yaml or index.yml`,
      }),
    );
  });

  test("a __proto__ key stays an ordinary key", () => {
    const root = tree({ "w.yaml": "name: w\n__proto__: { polluted: 1 }\n" });
    const { definition } = loadWorkflowFile(join(root, "w.yaml"));
    expect(Object.keys(definition)).toEqual(["name", "__proto__"]);
    expect(Object.getPrototypeOf(definition)).toBe(Object.prototype);
    expect(validateWorkflow(definition).errors).toContain(
      'unknown top-level key "__proto__" (expected: version, name, description, roles, graph, inputs, maxSteps, worktree, on)',
    );
  });

  test("an include fan-out is stopped at the expansion limit, naming the include chain", () => {
    // Six small files, each using the next 40 times: 40^5 copies of the last one if expanded.
    const files: Record<string, string> = { "w.yaml": "name: w\nroles: !include f1.yaml\n" };
    for (let i = 1; i <= 5; i++) {
      const uses = Array.from({ length: 40 }, (_, k) => `k${k}: !include f${i + 1}.yaml`);
      files[`f${i}.yaml`] = `${uses.join("\n")}\n`;
    }
    files["f6.yaml"] = "leaf: [a, b, c]\n";
    const root = tree(files);
    const { errors } = loadError(join(root, "w.yaml"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      new RegExp(
        `^the workflow expands to more than ${MAX_EXPANDED_VALUES} values \\(the limit is ${MAX_EXPANDED_VALUES} values and 4 MiB of text, counting every !include each time it is used\\); stopped while expanding w\\.yaml → f1\\.yaml → f2\\.yaml → `,
      ),
    );
  });

  test("repeated includes of one large text file count toward the text limit", () => {
    const uses = Array.from({ length: 20 }, (_, k) => `  p${k}: !include big.md`);
    const root = tree({
      "w.yaml": `name: w\nprompts:\n${uses.join("\n")}\n`,
      "big.md": "x".repeat(256 * 1024),
    });
    expect(loadError(join(root, "w.yaml")).errors[0]).toMatch(
      /^the workflow expands to more than 4 MiB of text .*; stopped while expanding w\.yaml → big\.md$/,
    );
  });

  test("the same file may be included a few times", () => {
    const root = tree({
      "w.yaml": "name: w\na: !include s.yaml\nb: !include s.yaml\n",
      "s.yaml": "type: string\n",
    });
    expect(loadWorkflowFile(join(root, "w.yaml")).definition).toEqual({
      name: "w",
      a: { type: "string" },
      b: { type: "string" },
    });
  });

  test("a failed include is placed at its tag, once per path, also when parsed from the cache", () => {
    const root = tree({
      "w.yaml":
        "name: w\nroles:\n  a: { goal: !include gone.md }\n  b:\n    goal: !include gone.md\n",
    });
    const cacheDir = join(root, "cache");
    const expected = [`w.yaml:3:14: !include "gone.md": file not found (${join(root, "gone.md")})`];
    expect(loadError(join(root, "w.yaml"), { cacheDir }).errors).toEqual(expected);
    expect(loadError(join(root, "w.yaml"), { cacheDir }).errors).toEqual(expected);
  });

  test("including a FIFO, a device or a folder is refused without opening it", () => {
    const root = tree({
      "w.yaml": "name: w\na: !include pipe.md\nb: !include null.md\nc: !include dir\n",
      "dir/x.md": "x",
    });
    execFileSync("mkfifo", [join(root, "pipe.md")]);
    symlinkSync("/dev/null", join(root, "null.md"));
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      'w.yaml:2:4: !include "pipe.md": is a named pipe (FIFO), not a regular file; only regular files can be included',
      // /dev/null is outside the folder, which is checked first.
      `w.yaml:3:4: !include "null.md" resolves through a symlink to "/dev/null", outside the workflow folder "${root}"; includes must stay inside the folder of the workflow file`,
      'w.yaml:4:4: !include "dir": is a directory, not a regular file; only regular files can be included',
    ]);
  });

  test("a workflow file that is a FIFO is refused instead of waited on", () => {
    const root = tree({});
    execFileSync("mkfifo", [join(root, "w.yaml")]);
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      `"${join(root, "w.yaml")}" is a named pipe (FIFO): a workflow must be a regular file`,
    ]);
  });
});

describe("loadWorkflowFile: text that is not what it seems", () => {
  test("a file that is not UTF-8 is refused with its byte offset, also when included", () => {
    const root = tree({
      "w.yaml": Buffer.from("name: w\ndescription: caf\xe9\n", "latin1"),
      "i.yaml": "name: i\ngoal: !include goal.md\n",
      "goal.md": Buffer.from("Write the caf\xe9 menu.\n", "latin1"),
    });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      "w.yaml:2:17: the file is not valid UTF-8: byte 0xE9 at offset 24 (Latin-1 or Windows-1252 text?): save the file as UTF-8",
    ]);
    expect(loadError(join(root, "i.yaml")).errors).toEqual([
      "goal.md:1:14: the file is not valid UTF-8: byte 0xE9 at offset 13 (Latin-1 or Windows-1252 text?): save the file as UTF-8",
    ]);
  });

  test("a UTF-16 or UTF-32 file is refused by its byte order mark", () => {
    const text = "name: w\n";
    const root = tree({
      "le.yaml": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]),
      "be.yaml": Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]),
      "w32.yaml": Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x6e, 0x00, 0x00, 0x00]),
    });
    const utf16 =
      "the file is UTF-16 (it starts with a UTF-16 byte order mark): save the file as UTF-8";
    expect(loadError(join(root, "le.yaml")).errors).toEqual([`le.yaml: ${utf16}`]);
    expect(loadError(join(root, "be.yaml")).errors).toEqual([`be.yaml: ${utf16}`]);
    expect(loadError(join(root, "w32.yaml")).errors).toEqual([
      "w32.yaml: the file is UTF-32 (it starts with a UTF-32 byte order mark): save the file as UTF-8",
    ]);
  });

  test("a UTF-8 byte order mark is dropped from YAML, JSON and text files", () => {
    const bom = "\ufeff";
    const root = tree({
      "w.yaml": `${bom}name: w\ngoal: !include goal.md\nschema: !include s.json\n`,
      "goal.md": `${bom}Café.`,
      "s.json": `${bom}{"type": "string"}`,
    });
    expect(loadWorkflowFile(join(root, "w.yaml")).definition).toEqual({
      name: "w",
      goal: "Café.",
      schema: { type: "string" },
    });
  });

  test("a duplicate key is named, with where its second use is", () => {
    const root = tree({
      "dup.yaml": "name: w\ngraph:\n  writer:\n    done: { role: $END }\n    done: { role: x }\n",
      "flow.yaml": "name: w\nx: { a: 1, b: 2, a: 3 }\n",
      // 1 and "1" are different YAML keys but the same property: one would replace the other.
      "number.yaml": 'name: w\nx:\n  1: a\n  "1": b\n',
    });
    expect(loadError(join(root, "dup.yaml")).errors).toEqual([
      'dup.yaml:5:5: key "done" appears twice in this mapping; keep one',
    ]);
    expect(loadError(join(root, "flow.yaml")).errors).toEqual([
      'flow.yaml:2:18: key "a" appears twice in this mapping; keep one',
    ]);
    expect(loadError(join(root, "number.yaml")).errors).toEqual([
      'number.yaml:4:3: key "1" appears twice in this mapping; keep one',
    ]);
  });

  test("a second YAML document in the file is refused", () => {
    const root = tree({ "w.yaml": "name: w\nroles: {}\n---\nname: v\n" });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      'w.yaml:3:1: a workflow file holds one YAML document; this one has a second after "---": remove it or split the file',
    ]);
    const leading = tree({ "w.yaml": "---\nname: w\n" });
    expect(loadWorkflowFile(join(leading, "w.yaml")).definition).toEqual({ name: "w" });
  });

  test("!include on a list or mapping, and unknown tags near and far from !include", () => {
    const root = tree({
      "w.yaml":
        "name: w\na: !include [a.yaml]\nb: !include { x: 1 }\nc: !inlcude c.yaml\nd: !env HOME\n",
    });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      'w.yaml:2:4: !include takes one file path (a plain string), e.g. "roles: !include roles.yaml"',
      'w.yaml:3:4: !include takes one file path (a plain string), e.g. "roles: !include roles.yaml"',
      "w.yaml:4:4: unknown tag !inlcude: did you mean !include?",
      "w.yaml:5:4: unknown tag !env: uwf knows only !include",
    ]);
  });
});

describe("loadWorkflowFile: nesting depth", () => {
  /** A value nested `depth` lists deep: depth 1 is `[x]`. */
  const nested = (depth: number) => `${"[".repeat(depth)}x${"]".repeat(depth)}`;

  test("thousands of unclosed brackets are refused where the limit is passed", () => {
    const root = tree({ "w.yaml": `name: w\ndescription: ${"[".repeat(20_000)}\n` });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      `w.yaml:2:${13 + MAX_NESTING_DEPTH + 1}: nesting is too deep (over ${MAX_NESTING_DEPTH} levels); a workflow never needs that many: flatten the structure`,
    ]);
  });

  test("nesting up to the limit loads; one level more is refused", () => {
    // The top-level mapping is the first level.
    const root = tree({
      "at.yaml": `name: w\nx: ${nested(MAX_NESTING_DEPTH - 1)}\n`,
      "over.yaml": `name: w\nx: ${nested(MAX_NESTING_DEPTH)}\n`,
    });
    expect(loadWorkflowFile(join(root, "at.yaml")).definition.x).toBeInstanceOf(Array);
    expect(loadError(join(root, "over.yaml")).errors).toEqual([
      `nesting is too deep (over ${MAX_NESTING_DEPTH} levels, counting YAML aliases and every !include); stopped while expanding over.yaml: a workflow never needs that many, flatten the structure`,
    ]);
  });

  test("levels built from aliases, includes and JSON count toward the limit", () => {
    const half = Math.ceil(MAX_NESTING_DEPTH / 2);
    const root = tree({
      "alias.yaml": `name: w\na: &a ${nested(half)}\nb: &b ${nested(half).replace("x", "*a")}\n`,
      "include.yaml": `name: w\nx: !include inner.yaml\n`,
      "inner.yaml": `y: ${nested(half).replace("x", "!include deep.json")}\n`,
      "deep.json": nested(half).replace("x", '"x"'),
    });
    expect(loadError(join(root, "alias.yaml")).errors).toEqual([
      `nesting is too deep (over ${MAX_NESTING_DEPTH} levels, counting YAML aliases and every !include); stopped while expanding alias.yaml: a workflow never needs that many, flatten the structure`,
    ]);
    expect(loadError(join(root, "include.yaml")).errors).toEqual([
      `nesting is too deep (over ${MAX_NESTING_DEPTH} levels, counting YAML aliases and every !include); stopped while expanding include.yaml → inner.yaml → deep.json: a workflow never needs that many, flatten the structure`,
    ]);
  });
});

describe("loadWorkflowFile: JSON includes", () => {
  test("a duplicate key in an included JSON file is refused like one in YAML", () => {
    const root = tree({
      "w.yaml": "name: w\nroles: !include roles.json\n",
      "roles.json": '{\n  "writer": { "goal": "a" },\n  "writer": { "goal": "b" }\n}\n',
    });
    expect(loadError(join(root, "w.yaml")).errors).toEqual([
      'roles.json:3:3: key "writer" appears twice in this object; keep one',
    ]);
  });
});
