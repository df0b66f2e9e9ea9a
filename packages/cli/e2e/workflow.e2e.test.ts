import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  normalise,
  REPO_ROOT,
  type RunResult,
  runUwf,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const FIXTURES = fileURLToPath(new URL("./fixtures/workflow/", import.meta.url));
const REVIEW = join(FIXTURES, "valid/review.yaml");
const EXAMPLES = join(REPO_ROOT, "examples");
const HASH = /^[0-9A-HJKMNP-TV-Z]{13}$/;

let home: TempHome;
let work: TempHome;
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, "packages/cli/dist/bundle/main.cjs"))) {
    throw new Error("packages/cli/dist/bundle is missing: run `pnpm build` first");
  }
});
beforeEach(() => {
  home = tempHome();
  work = tempHome();
});
afterEach(() => {
  home.cleanup();
  work.cleanup();
});

/** Run the built `uwf` with a temp UWF_HOME, from the work folder unless told otherwise. */
function uwf(args: string[], options: { cwd?: string } = {}): Promise<RunResult> {
  return runUwf(args, { home: home.home, cwd: options.cwd ?? work.home });
}

function json<T = Record<string, unknown>>(text: string): T {
  return JSON.parse(text) as T;
}

/** Copy the review fixture into the work folder, optionally with another description. */
function reviewFile(description?: string, dir = work.home): string {
  const path = join(dir, "review.yaml");
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(REVIEW, "utf8");
  writeFileSync(
    path,
    description === undefined
      ? text
      : text.replace(/^description: .*$/m, `description: ${description}`),
  );
  return path;
}

async function addReview(description?: string): Promise<string> {
  const added = await uwf(["workflow", "add", reviewFile(description), "--format", "json"]);
  expect(added.stderr).toBe("");
  expect(added.code).toBe(0);
  return json<{ hash: string }>(added.stdout).hash;
}

/**
 * Every file under UWF_HOME except logs and caches (derived, not state), with its content: what
 * "nothing written" compares.
 */
function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else files[relative(root, path)] = readFileSync(path, "utf8");
    }
  };
  for (const name of readdirSync(root)) {
    if (name === "logs" || name === "cache") continue;
    const path = join(root, name);
    if (statSync(path).isDirectory()) visit(path);
    else files[name] = readFileSync(path, "utf8");
  }
  return files;
}

describe("uwf workflow: the registry life cycle", () => {
  it("adds a workflow, then lists, shows and tells its history", async () => {
    const file = reviewFile();
    const added = await uwf(["workflow", "add", "review.yaml"]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(normalise(added.stdout)).toBe("added review <HASH> (version 1)\n");
    const hash = added.stdout.split(" ")[2]!;
    expect(hash).toMatch(HASH);

    const list = await uwf(["workflow", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^review  ${hash}  1 version  \\d{4}-\\d\\d-\\d\\dT`));
    const listed = json<{ workflows: unknown[] }>(
      (await uwf(["workflow", "list", "--format", "json"])).stdout,
    );
    expect(listed.workflows).toEqual([
      { name: "review", hash, updatedAt: expect.any(String), versions: 1 },
    ]);

    const show = await uwf(["workflow", "show", "review"], { cwd: home.home });
    expect(show.code).toBe(0);
    expect(show.stdout).toBe(
      [
        `review (${hash})`,
        "A writer drafts, a reviewer approves or sends it back.",
        "",
        "roles:",
        "  reviewer — Approves or rejects the draft.",
        "  writer — Drafts the text.",
        "",
        "graph:",
        "  $START --new--> writer",
        "  $START --resume--> writer",
        "  reviewer --approved--> $END",
        "  reviewer --rejected--> writer",
        "  writer --done--> reviewer",
        "",
      ].join("\n"),
    );
    const shown = json((await uwf(["workflow", "show", "review", "--format", "json"])).stdout);
    expect(shown).toMatchObject({
      name: "review",
      hash,
      description: "A writer drafts, a reviewer approves or sends it back.",
      roles: ["reviewer", "writer"],
      source: "registry",
      path: null,
      warnings: [],
    });
    expect(shown.graph).toMatchObject({
      reviewer: { rejected: { role: "writer", prompt: "Fix these comments: {{{comments}}}" } },
    });

    // The file itself and the hash resolve too, to the same workflow.
    const byFile = json((await uwf(["workflow", "show", file, "--format", "json"])).stdout);
    expect(byFile).toMatchObject({ name: "review", hash, source: "file", path: file });
    const byHash = json((await uwf(["workflow", "show", hash, "--format", "json"])).stdout);
    expect(byHash).toMatchObject({ name: "review", hash, source: "hash", path: null });

    const history = await uwf(["workflow", "history", "review"]);
    expect(history.code).toBe(0);
    expect(normalise(history.stdout)).toBe("<HASH>  <TIME>  (current)\n");
  });

  it("adds a changed version, keeps history newest first, and rolls back", async () => {
    const v1 = await addReview();
    const changed = await uwf(["workflow", "add", reviewFile("Second version.")]);
    expect(changed.code).toBe(0);
    const v2 = changed.stdout.split(" ")[2]!;
    expect(changed.stdout).toBe(`added review ${v2} (version 2)\n`);
    expect(v2).not.toBe(v1);

    const again = await uwf(["workflow", "add", "review.yaml"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`review is unchanged (${v2})\n`);

    const history = json<{ current: string; history: { hash: string; at: string }[] }>(
      (await uwf(["workflow", "history", "review", "--format", "json"])).stdout,
    );
    expect(history).toMatchObject({ name: "review", current: v2 });
    expect(history.history.map((h) => h.hash)).toEqual([v2, v1]);
    expect(history.history[0]!.at >= history.history[1]!.at).toBe(true);
    const historyText = await uwf(["workflow", "history", "review"]);
    expect(historyText.stdout.split("\n")[0]).toBe(`${v2}  ${history.history[0]!.at}  (current)`);

    // Default: back to the previous version; the rollback is itself a new history item.
    const back = await uwf(["workflow", "rollback", "review"]);
    expect(back.stderr).toBe("");
    expect(back.code).toBe(0);
    expect(back.stdout).toBe(`review now points at ${v1}\n`);
    const after = json<{ current: string; history: { hash: string }[] }>(
      (await uwf(["workflow", "history", "review", "--format", "json"])).stdout,
    );
    expect(after.current).toBe(v1);
    expect(after.history.map((h) => h.hash)).toEqual([v1, v2, v1]);
    const shown = json((await uwf(["workflow", "show", "review", "--format", "json"])).stdout);
    expect(shown).toMatchObject({ hash: v1, description: expect.stringMatching(/^A writer/) });

    const to = await uwf(["workflow", "rollback", "review", "--to", v2, "--format", "json"]);
    expect(to.code).toBe(0);
    expect(json(to.stdout)).toMatchObject({ name: "review", current: v2 });

    const unknown = await uwf(["workflow", "rollback", "review", "--to", "0000000000000"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      [
        "error: 0000000000000 is not a version of workflow review",
        "hint: `uwf workflow history review` lists its versions",
        "",
      ].join("\n"),
    );
    const malformed = await uwf(["workflow", "rollback", "review", "--to", "v1"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(
      "error: --to must be a CAS hash (13 Crockford Base32 characters",
    );
    const current = json<{ current: string }>(
      (await uwf(["workflow", "history", "review", "--format", "json"])).stdout,
    );
    expect(current.current).toBe(v2);
  });

  it("refuses to roll back a workflow with one version or no registration", async () => {
    await addReview();
    const only = await uwf(["workflow", "rollback", "review"]);
    expect(only.code).toBe(2);
    expect(only.stderr).toMatch(/^error: workflow review has no earlier version to roll back to\n/);
    expect(only.stderr).toContain("hint: register a new version with `uwf workflow add <file>`");

    const missing = await uwf(["workflow", "rollback", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: no workflow named "nope" is registered\nhint: /);
  });

  it("removes a name; showing it afterwards fails with a hint", async () => {
    await addReview();
    const rm = await uwf(["workflow", "rm", "review"]);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toBe("removed review\n");

    const list = await uwf(["workflow", "list"]);
    expect(list.stdout).toBe("no workflows registered; add one with `uwf workflow add <file>`\n");

    // From the home folder: no review.yaml next to the cwd, no .workflows/ anywhere.
    const show = await uwf(["workflow", "show", "review"], { cwd: home.home });
    expect(show.code).toBe(1);
    expect(show.stdout).toBe("");
    expect(show.stderr).toContain('error: workflow "review" not found; tried:\n');
    expect(show.stderr).toContain('  - registry: no workflow named "review"\n');
    expect(show.stderr).toContain(
      "hint: Run `uwf workflow list` to see registered workflows, or pass the path of a workflow YAML file.",
    );
    const showJson = await uwf(["workflow", "show", "review", "--format", "json"], {
      cwd: home.home,
    });
    expect(showJson.code).toBe(1);
    expect(json<{ error: unknown }>(showJson.stderr).error).toMatchObject({
      code: "WORKFLOW_NOT_FOUND",
      hint: expect.stringContaining("uwf workflow list"),
    });

    const again = await uwf(["workflow", "rm", "review"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      [
        'error: no workflow named "review" is registered',
        "hint: See the registered ones with `uwf workflow list`.",
        "",
      ].join("\n"),
    );
  });
});

describe("uwf workflow: a damaged registry file", () => {
  it("is named by list, show and history instead of being hidden", async () => {
    await addReview();
    const file = join(home.home, "workflows/broken.json");
    writeFileSync(file, "{ half an entr");

    const list = await uwf(["workflow", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")[1]).toBe(
      `warning: broken cannot be read: ${file}: the content is not JSON (fix it by hand, or \`uwf workflow rm broken\` and add it again)`,
    );
    const doc = json<{ workflows: { name: string }[]; problems: unknown[] }>(
      (await uwf(["workflow", "list", "--format", "json"])).stdout,
    );
    expect(doc.workflows.map((w) => w.name)).toEqual(["review"]);
    expect(doc.problems).toEqual([{ name: "broken", file, problem: "the content is not JSON" }]);

    for (const args of [
      ["workflow", "show", "broken"],
      ["workflow", "history", "broken"],
    ]) {
      const result = await uwf(args, { cwd: home.home });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        [
          `error: ${file}: the content is not JSON`,
          "hint: fix the file by hand, or remove it and add the workflow again with `uwf workflow add`",
          "",
        ].join("\n"),
      );
    }
    expect((await uwf(["workflow", "rm", "broken"])).code).toBe(0);
    expect((await uwf(["workflow", "list"])).stdout).not.toContain("broken");
  });
});

describe("uwf workflow validate", () => {
  const examples = readdirSync(EXAMPLES).filter((name) => /\.ya?ml$/.test(name));

  it("finds the examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  it.each(examples)("accepts examples/%s", async (name) => {
    const result = await uwf(["workflow", "validate", join(EXAMPLES, name)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(normalise(result.stdout)).toBe(`✓ ${name.replace(/\.ya?ml$/, "")} is valid (<HASH>)\n`);
  });

  it("reports the hash `add` will give, without writing anything", async () => {
    const validated = await uwf(["workflow", "validate", reviewFile(), "--format", "json"]);
    expect(validated.code).toBe(0);
    const doc = json<{ hash: string }>(validated.stdout);
    expect(doc).toMatchObject({ valid: true, name: "review", errors: [], warnings: [] });
    expect(existsSync(join(home.home, "cas"))).toBe(false);
    expect(existsSync(join(home.home, "workflows"))).toBe(false);
    expect(await addReview()).toBe(doc.hash);
  });

  it("validates and adds a folder holding index.yaml", async () => {
    const folder = join(work.home, "review");
    mkdirSync(folder);
    copyFileSync(REVIEW, join(folder, "index.yaml"));
    const validated = await uwf(["workflow", "validate", "review"]);
    expect(validated.stderr).toBe("");
    expect(validated.code).toBe(0);
    expect(normalise(validated.stdout)).toBe("✓ review is valid (<HASH>)\n");
    const added = await uwf(["workflow", "add", "review"]);
    expect(added.code).toBe(0);
    expect(normalise(added.stdout)).toBe("added review <HASH> (version 1)\n");
  });

  it("says a missing file does not exist (exit 1)", async () => {
    const result = await uwf(["workflow", "validate", "nope.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `error: workflow file "${join(work.home, "nope.yaml")}" does not exist`,
        "hint: Check the path. This command reads a file; a registered workflow is shown by `uwf workflow show <name>` (`uwf workflow list` lists them).",
        "",
      ].join("\n"),
    );
  });

  it("suggests the .yaml a path lacks, and calls a folder without index.yaml not found (exit 1)", async () => {
    writeFileSync(join(work.home, "flow.yaml"), "name: flow\n");
    const bare = await uwf(["workflow", "validate", "flow"]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain(`hint: Did you mean "${join(work.home, "flow")}.yaml"?`);
    mkdirSync(join(work.home, "flows"));
    const folder = await uwf(["workflow", "add", "flows"]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain("is a directory without index.yaml or index.yml");
  });
});

interface InvalidCase {
  title: string;
  /** The workflow file to check: a fixture, or one the case builds in the work folder. */
  file: (workDir: string) => string;
  /** Every error, in order. */
  errors: (string | RegExp)[];
}

const fixture = (path: string) => () => join(FIXTURES, path);

const INVALID: InvalidCase[] = [
  {
    title: "malformed YAML (the message has line and column)",
    // Written at run time: a malformed fixture in the repository would break the YAML linter.
    file: (workDir) => {
      const file = join(workDir, "malformed.yaml");
      writeFileSync(
        file,
        [
          "name: malformed",
          "roles:",
          "  writer:",
          "    goal: Write: the page",
          "graph: {}",
          "",
        ].join("\n"),
      );
      return file;
    },
    errors: [/^malformed\.yaml:4:11: Nested mappings are not allowed in compact mappings$/],
  },
  {
    title: "a root that is not a mapping",
    file: fixture("invalid/non-mapping.yaml"),
    errors: [
      "non-mapping.yaml: the top level must be a mapping with name, roles and graph, found a sequence",
    ],
  },
  {
    title: "missing fields",
    file: fixture("invalid/missing-fields.yaml"),
    errors: [
      'missing-fields.yaml:2:1: missing required field "name"',
      'missing-fields.yaml:2:1: missing required field "roles"',
      'missing-fields.yaml:2:1: missing required field "graph"',
    ],
  },
  {
    title: "an unknown target role",
    file: fixture("invalid/unknown-target.yaml"),
    errors: [
      'unknown-target.yaml:21:17: edge reviewer→rejected: unknown target role "devloper" (did you mean "developer"?)',
    ],
  },
  {
    title: 'the "_" status',
    file: fixture("invalid/underscore-status.yaml"),
    errors: [
      'underscore-status.yaml: status key "_" is no longer valid: use explicit statuses (see uwf prompt workflow-authoring)',
    ],
  },
  {
    title: "const and enum mixed up in $status",
    file: fixture("invalid/status-mixup.yaml"),
    errors: [
      'status-mixup.yaml:5:5: role "listed" frontmatter: "$status" const must be a string, found ["approved","rejected"]',
      'status-mixup.yaml:10:5: role "scalar" frontmatter: "$status" enum must be a non-empty list of strings',
      'status-mixup.yaml:15:5: role "variants" frontmatter oneOf[0]: "$status" enum has 2 values (ready, waiting); each variant declares exactly one status: use const',
    ],
  },
  {
    title: "$START without resume",
    file: fixture("invalid/start-without-resume.yaml"),
    errors: [
      'start-without-resume.yaml:9:3: $START must have edges with statuses "new" and "resume"',
    ],
  },
  {
    title: "an unreachable role",
    file: fixture("invalid/unreachable-role.yaml"),
    errors: ['unreachable-role.yaml:8:3: role "tester" is not reachable from $START'],
  },
  {
    title: "undefined template variables (dotted ones too)",
    file: fixture("invalid/undefined-variable.yaml"),
    errors: [
      'undefined-variable.yaml:16:25: prompt variable "branch" in graph[developer][done] not found in role "developer" frontmatter',
      'undefined-variable.yaml:16:25: prompt variable "pr.number" in graph[developer][done] not found in role "developer" frontmatter',
    ],
  },
  {
    title: "an include escaping the folder through ../",
    file: fixture("escape/inner/escape-dotdot.yaml"),
    errors: [
      `escape-dotdot.yaml:3:11: !include "../outside-role.yaml" resolves to "${join(FIXTURES, "escape/outside-role.yaml")}", outside the workflow folder "${join(FIXTURES, "escape/inner")}"; includes must stay inside the folder of the workflow file`,
    ],
  },
  {
    title: "an include escaping the folder through a symlink",
    file: (workDir) => {
      const folder = join(workDir, "wf");
      mkdirSync(folder);
      copyFileSync(join(FIXTURES, "escape/outside-role.yaml"), join(workDir, "outside-role.yaml"));
      symlinkSync(join(workDir, "outside-role.yaml"), join(folder, "role.yaml"));
      const text = readFileSync(join(FIXTURES, "escape/inner/escape-dotdot.yaml"), "utf8");
      const file = join(folder, "escape-symlink.yaml");
      writeFileSync(
        file,
        text
          .replace("name: escape-dotdot", "name: escape-symlink")
          .replace("../outside-role.yaml", "role.yaml"),
      );
      return file;
    },
    errors: [
      /^escape-symlink\.yaml:3:11: !include "role\.yaml" resolves through a symlink to ".*\/outside-role\.yaml", outside the workflow folder ".*\/wf"; includes must stay inside the folder of the workflow file$/,
    ],
  },
  {
    title: "an include cycle",
    file: fixture("invalid/include-cycle.yaml"),
    errors: [
      "include-cycle.yaml: include cycle: cycle-roles.yaml → cycle-writer.yaml → cycle-roles.yaml",
    ],
  },
  {
    title: "a YAML alias bomb",
    file: fixture("invalid/alias-bomb.yaml"),
    errors: [
      /^alias-bomb\.yaml: refused to expand YAML aliases \(.+\); a workflow may dereference at most 100 aliases$/,
    ],
  },
  {
    title: "role schemas ajv cannot compile",
    file: fixture("invalid/uncompilable-schema.yaml"),
    errors: [
      'uncompilable-schema.yaml:5:5: role "writer" frontmatter is not a valid JSON Schema: at properties.pages.type: "integr" is not a JSON Schema type (string, number, integer, boolean, object, array, null)',
      'uncompilable-schema.yaml:10:5: role "editor" frontmatter is not a valid JSON Schema: at properties.words.minimum: must be number',
    ],
  },
  {
    title: "a name that is not the file's",
    file: fixture("invalid/name-mismatch.yaml"),
    errors: [
      'name-mismatch.yaml:1:1: workflow name mismatch: file "name-mismatch.yaml" implies name "name-mismatch" but YAML declares name "mismatched-name". Either rename the file to "mismatched-name.yaml" or change the YAML `name` field to "name-mismatch"',
    ],
  },
];

interface ProblemEntry {
  severity: string;
  code: string;
  message: string;
  path: string[] | null;
  file: string;
  line: number | null;
  column: number | null;
}

/** A problem of `--format json` as the text view writes it. */
const problemText = (p: ProblemEntry) =>
  `${p.line === null ? p.file : `${p.file}:${p.line}:${p.column}`}: ${p.message}`;

const matcher = (error: string | RegExp) =>
  typeof error === "string" ? error : expect.stringMatching(error);

describe("invalid workflows: exit 3, every error listed, nothing written", () => {
  it.each(INVALID)("$title", async ({ file: makeFile, errors }) => {
    await addReview();
    const before = snapshot(home.home);
    const listBefore = (await uwf(["workflow", "list", "--format", "json"])).stdout;
    const file = makeFile(work.home);
    const name = basename(file).replace(/\.ya?ml$/, "");
    const expected = errors.map(matcher);

    const [validate, validateJson, add, addJson] = await Promise.all([
      uwf(["workflow", "validate", file]),
      uwf(["workflow", "validate", file, "--format", "json"]),
      uwf(["workflow", "add", file]),
      uwf(["workflow", "add", file, "--format", "json"]),
    ]);

    expect(validate.code).toBe(3);
    const lines = validate.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`✗ ${file} is invalid:`);
    for (const line of lines.slice(1)) expect(line.startsWith("  - ")).toBe(true);
    expect(lines.slice(1).map((line) => line.slice(4))).toEqual(expected);

    expect(validateJson.code).toBe(3);
    const doc = json(validateJson.stdout);
    expect(Object.keys(doc).sort()).toEqual(
      ["errors", "hash", "name", "problems", "source", "valid", "warnings"].sort(),
    );
    // Each error again with its code and place; the line a person reads is made of them.
    const problems = (doc as { problems: ProblemEntry[] }).problems;
    expect(problems.map((p) => p.severity)).toEqual(errors.map(() => "error"));
    expect(problems.map(problemText)).toEqual(expected);
    for (const problem of problems) {
      expect(problem).toMatchObject({ code: expect.any(String), file: expect.any(String) });
    }
    expect(doc).toMatchObject({
      valid: false,
      hash: null,
      errors: expected,
      warnings: [],
      source: file,
    });

    expect(add.code).toBe(3);
    expect(add.stdout).toBe("");
    const message =
      errors.length === 1
        ? `error: invalid workflow "${file}": `
        : `error: invalid workflow "${file}" (${errors.length} errors):\n`;
    expect(add.stderr.startsWith(message)).toBe(true);
    for (const error of json<{ error: { errors: string[] } }>(addJson.stderr).error.errors) {
      expect(add.stderr).toContain(error);
    }
    expect(add.stderr).toContain(
      `hint: Fix the problems listed and check again with \`uwf workflow validate ${file}\``,
    );

    expect(addJson.code).toBe(3);
    expect(addJson.stdout).toBe("");
    expect(json<{ error: unknown }>(addJson.stderr).error).toMatchObject({
      code: "WORKFLOW_INVALID",
      message: expect.stringContaining(`invalid workflow "${file}"`),
      hint: expect.stringContaining("uwf workflow validate"),
      errors: expected,
      problems,
    });

    expect((await uwf(["workflow", "list", "--format", "json"])).stdout).toBe(listBefore);
    expect(snapshot(home.home)).toEqual(before);
    expect(existsSync(join(home.home, "workflows", `${name}.json`))).toBe(false);
  });
});

describe("resolving a <workflow> argument", () => {
  it("resolves a 13-character name that is a file, not a stored hash, to the file", async () => {
    const name = "ABCDEFGHJKMNP";
    writeFileSync(
      join(work.home, name),
      readFileSync(REVIEW, "utf8").replace("name: review", `name: ${name}`),
    );
    const has = await uwf(["cas", "has", name]);
    expect(has.code).toBe(1);

    const shown = await uwf(["workflow", "show", name, "--format", "json"]);
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(0);
    expect(json(shown.stdout)).toMatchObject({ name, source: "file", path: join(work.home, name) });

    const added = await uwf(["workflow", "add", name]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^added ABCDEFGHJKMNP [0-9A-HJKMNP-TV-Z]{13} \(version 1\)\n$/);
  });

  it("finds .workflows/<name>.yaml in a parent folder, but not above the repository root", async () => {
    const outer = work.home;
    const repo = join(outer, "repo");
    const nested = join(repo, "src/deep/er");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(nested, { recursive: true });
    reviewFile(undefined, join(repo, ".workflows"));
    mkdirSync(join(repo, ".workflows/folder-flow"));
    writeFileSync(
      join(repo, ".workflows/folder-flow/index.yaml"),
      readFileSync(REVIEW, "utf8").replace("name: review", "name: folder-flow"),
    );
    mkdirSync(join(outer, ".workflows"));
    writeFileSync(
      join(outer, ".workflows/above.yaml"),
      readFileSync(REVIEW, "utf8").replace("name: review", "name: above"),
    );

    const found = await uwf(["workflow", "show", "review", "--format", "json"], { cwd: nested });
    expect(found.stderr).toBe("");
    expect(found.code).toBe(0);
    expect(json(found.stdout)).toMatchObject({
      name: "review",
      source: "workflows-dir",
      path: join(repo, ".workflows/review.yaml"),
    });
    const folder = await uwf(["workflow", "show", "folder-flow", "--format", "json"], {
      cwd: nested,
    });
    expect(json(folder.stdout)).toMatchObject({
      name: "folder-flow",
      path: join(repo, ".workflows/folder-flow/index.yaml"),
    });

    const above = await uwf(["workflow", "show", "above"], { cwd: nested });
    expect(above.code).toBe(1);
    expect(above.stderr).toBe(
      [
        'error: workflow "above" not found; tried:',
        `  - file ${join(nested, "above")}: does not exist`,
        `  - .workflows/ folders: ${join(repo, ".workflows")}`,
        '  - registry: no workflow named "above"',
        "hint: Run `uwf workflow list` to see registered workflows, or pass the path of a workflow YAML file.",
        "",
      ].join("\n"),
    );
    // Outside the repository the same name is found.
    const outside = await uwf(["workflow", "show", "above", "--format", "json"], { cwd: outer });
    expect(json(outside.stdout)).toMatchObject({ name: "above", source: "workflows-dir" });
  });

  it("lists what was tried for an unknown workflow (exit 1), in text and JSON", async () => {
    const text = await uwf(["thread", "start", "no-such-flow", "-p", "hi"]);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain('error: workflow "no-such-flow" not found; tried:\n');
    expect(text.stderr).toContain(`  - file ${join(work.home, "no-such-flow")}: does not exist\n`);
    expect(text.stderr).toContain('  - registry: no workflow named "no-such-flow"\n');

    const doc = await uwf(["workflow", "show", "0000000000000", "--format", "json"]);
    expect(doc.code).toBe(1);
    expect(json<{ error: unknown }>(doc.stderr).error).toMatchObject({
      code: "WORKFLOW_NOT_FOUND",
      tried: [
        "CAS hash 0000000000000: not in the store",
        `file ${join(work.home, "0000000000000")}: does not exist`,
        expect.stringMatching(/^\.workflows\/ folders: /),
        'registry: no workflow named "0000000000000"',
      ],
    });
  });
});

describe("concurrency and pinning", () => {
  it("keeps all 10 versions added at once by 10 processes", async () => {
    const files = Array.from({ length: 10 }, (_, i) =>
      reviewFile(`Version ${i}.`, join(work.home, `v${i}`)),
    );
    const results = await Promise.all(files.map((file) => uwf(["workflow", "add", file])));
    for (const result of results) {
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(normalise(result.stdout)).toMatch(/^added review <HASH> \(version \d+\)\n$/);
    }
    const versions = results.map((r) => Number(/version (\d+)/.exec(r.stdout)![1])).sort();
    expect(versions).toEqual([1, 10, 2, 3, 4, 5, 6, 7, 8, 9]);

    const entry = json<{ current: string; history: { hash: string }[] }>(
      readFileSync(join(home.home, "workflows/review.json"), "utf8"),
    );
    expect(entry.history).toHaveLength(10);
    expect(new Set(entry.history.map((h) => h.hash)).size).toBe(10);
    expect(entry.current).toBe(entry.history[0]!.hash);
    const added = results.map((r) => r.stdout.split(" ")[2]).sort();
    expect(entry.history.map((h) => h.hash).sort()).toEqual(added);
  });

  it("pins a started thread to the version it started with", async () => {
    const v1 = await addReview();
    const started = await uwf([
      "thread",
      "start",
      "review",
      "-p",
      "Draft a haiku",
      "--format",
      "json",
    ]);
    expect(started.code).toBe(0);
    const { thread } = json<{ thread: string }>(started.stdout);
    const v2 = await addReview("A newer version.");
    expect(v2).not.toBe(v1);

    const shown = await uwf(["thread", "show", thread, "--format", "json"]);
    expect(shown.code).toBe(0);
    expect(json(shown.stdout)).toMatchObject({ thread, workflow: "review", workflowHash: v1 });
  });
});

describe("the uwf program", () => {
  it("prints the version of packages/cli/package.json", async () => {
    const { version } = json<{ version: string }>(
      readFileSync(join(REPO_ROOT, "packages/cli/package.json"), "utf8"),
    );
    for (const flag of ["-V", "--version"]) {
      const result = await uwf([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    }
    // The same version when the fast path is not taken.
    expect((await uwf(["--format", "json", "-V"])).stdout).toBe(`${version}\n`);
  });

  it("lists the command groups in --help and a group's commands in its --help", async () => {
    const help = await uwf(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: uwf \[options\] \[command\]/);
    for (const group of ["workflow", "thread", "step", "cas"]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${group} +\\S`, "m"));
    }
    const workflow = await uwf(["workflow", "--help"]);
    expect(workflow.code).toBe(0);
    for (const command of [
      "add <file>",
      "validate <file>",
      "show <workflow>",
      "list",
      "history <name>",
      "rollback [options] <name>",
      "rm <name>",
    ]) {
      expect(workflow.stdout).toContain(`  ${command} `);
    }
  });

  it("treats a group without a command as a usage error (help on stderr, exit 2)", async () => {
    const bare = await uwf(["workflow"]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toMatch(/^Usage: uwf workflow \[options\] \[command\]/);
    expect((await uwf([])).code).toBe(2);
    expect((await uwf(["help"])).code).toBe(0);
  });

  it("suggests the command meant (exit 2)", async () => {
    const group = await uwf(["workflw", "list"]);
    expect(group.code).toBe(2);
    expect(group.stdout).toBe("");
    expect(group.stderr).toBe(
      [
        "error: unknown command 'workflw'",
        "(Did you mean workflow?)",
        "hint: Run `uwf --help` (or `uwf <command> --help`) for usage.",
        "",
      ].join("\n"),
    );
    const command = await uwf(["workflow", "lsit", "--format", "json"]);
    expect(command.code).toBe(2);
    expect(json<{ error: unknown }>(command.stderr).error).toEqual({
      code: "USAGE",
      exitCode: 2,
      message: "unknown command 'lsit'\n(Did you mean list?)",
      hint: "Run `uwf workflow --help` for its usage.",
    });
  });

  it("points a usage error at the help of the command it is about (exit 2)", async () => {
    const extra = await uwf(["usage", "01K8F3XQ"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toBe(
      [
        "error: too many arguments for 'usage'. Expected 0 arguments but got 1.",
        "hint: Run `uwf usage --help` for its usage.",
        "",
      ].join("\n"),
    );
    const option = await uwf(["thread", "exec", "--no-such-option"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("hint: Run `uwf thread exec --help` for its usage.");
  });

  it("refuses --format xml (exit 2)", async () => {
    for (const args of [
      ["--format", "xml", "workflow", "list"],
      ["workflow", "list", "--format=xml"],
    ]) {
      const result = await uwf(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^error: option '--format <format>' argument 'xml' is invalid\. Allowed choices are text, json, yaml\.\nhint: /,
      );
    }
  });

  it("refuses a missing argument (exit 2)", async () => {
    const result = await uwf(["workflow", "add"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: missing required argument 'file'\n/);
  });
});
