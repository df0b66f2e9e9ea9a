import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Cas, openStore, type RegistryStore } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { WorkflowDefinition } from "./definition.js";
import { loadWorkflowFile } from "./load.js";
import { materialiseWorkflow } from "./materialise.js";
import { loadAndValidate, type ResolveContext, resolveWorkflow } from "./resolve.js";
import { validateWorkflow } from "./validate.js";

const EXAMPLES = fileURLToPath(new URL("../../../../examples/", import.meta.url));

const workflowYaml = (name: string, greeting = "Hello") => `name: ${name}
roles:
  greeter:
    frontmatter:
      properties: { $status: { const: done }, greeting: { type: string } }
      required: [$status, greeting]
graph:
  $START:
    new: { role: greeter, prompt: "${greeting}" }
    resume: { role: greeter, prompt: "Again." }
  greeter:
    done: { role: $END, prompt: "{{{greeting}}}" }
`;

let base: string;
let home: string;
let cas: Cas;
let registry: RegistryStore;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "uwf-resolve-")));
  home = join(base, "home");
  const store = await openStore({ home });
  cas = store.cas;
  registry = store.registry;
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function write(path: string, content: string): string {
  const full = join(base, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

function context(cwd: string): ResolveContext {
  return { cwd: join(base, cwd), cas, registry };
}

async function resolveError(ref: string, cwd: string): Promise<UwfError> {
  try {
    await resolveWorkflow(ref, context(cwd));
  } catch (error) {
    expect(error).toBeInstanceOf(UwfError);
    return error as UwfError;
  }
  throw new Error(`expected resolving ${ref} to fail`);
}

function definitionOf(path: string): WorkflowDefinition {
  const result = validateWorkflow(loadWorkflowFile(path).definition);
  expect(result.errors).toEqual([]);
  return result.definition as WorkflowDefinition;
}

describe("materialiseWorkflow", () => {
  test("stores role schemas as schema nodes and the workflow as a workflow node", async () => {
    const hash = await materialiseWorkflow(cas, definitionOf(join(EXAMPLES, "solve-issue.yaml")));
    const node = await cas.get(hash);
    expect(node.type).toBe(cas.builtin("workflow"));
    const payload = await cas.getPayload<{ roles: Record<string, { frontmatter: string }> }>(
      hash,
      "workflow",
    );
    expect(Object.keys(payload.roles)).toEqual([
      "committer",
      "developer",
      "planner",
      "reviewer",
      "tester",
    ]);
    const planner = await cas.get(payload.roles.planner?.frontmatter as string);
    expect(planner.type).toBe("schema");
    expect(planner.payload).toMatchObject({ oneOf: expect.any(Array) });
  });

  test("is deterministic: the same YAML, in any key order, gives the same hash", async () => {
    const first = await materialiseWorkflow(cas, definitionOf(join(EXAMPLES, "debate.yaml")));
    const again = await materialiseWorkflow(
      (await openStore({ home: join(base, "other-home") })).cas,
      definitionOf(join(EXAMPLES, "debate.yaml")),
    );
    expect(again).toBe(first);
    const definition = definitionOf(join(EXAMPLES, "hello.yaml"));
    const { name, description, roles, graph } = definition;
    const reordered = JSON.parse(JSON.stringify({ graph, roles, description, name }));
    expect(await materialiseWorkflow(cas, reordered)).toBe(
      await materialiseWorkflow(cas, definition),
    );
  });

  test("a frontmatter ajv cannot compile is WORKFLOW_INVALID naming the role", async () => {
    const definition = definitionOf(join(EXAMPLES, "hello.yaml"));
    const greeter = definition.roles.greeter;
    if (greeter === undefined) throw new Error("hello has a greeter");
    greeter.frontmatter = { ...greeter.frontmatter, minProperties: "many" };
    await expect(materialiseWorkflow(cas, definition)).rejects.toThrowError(
      expect.objectContaining({
        code: "WORKFLOW_INVALID",
        message: expect.stringContaining('role "greeter" frontmatter is not a valid JSON Schema'),
      }),
    );
  });
});

describe("resolveWorkflow", () => {
  test("a file path: loaded, validated and materialised", async () => {
    write("repo/flows/greet.yaml", workflowYaml("greet"));
    const resolved = await resolveWorkflow("flows/greet.yaml", context("repo"));
    expect(resolved).toMatchObject({
      source: "file",
      path: join(base, "repo/flows/greet.yaml"),
      warnings: [],
    });
    expect(resolved.payload.name).toBe("greet");
    expect(await cas.getPayload(resolved.hash, "workflow")).toEqual(resolved.payload);
  });

  test("a folder path resolves to its index.yaml", async () => {
    write("repo/greet/index.yaml", workflowYaml("greet"));
    expect(await resolveWorkflow("greet", context("repo"))).toMatchObject({
      source: "file",
      path: join(base, "repo/greet/index.yaml"),
    });
  });

  test("a stored workflow hash", async () => {
    const { hash } = await resolveWorkflow(write("greet.yaml", workflowYaml("greet")), context(""));
    const resolved = await resolveWorkflow(hash, context(""));
    expect(resolved).toMatchObject({ hash, source: "hash", path: null });
    expect(resolved.payload.name).toBe("greet");
  });

  test("a stored workflow hash in any case, or a unique prefix of it tried last", async () => {
    const { hash } = await resolveWorkflow(write("greet.yaml", workflowYaml("greet")), context(""));
    expect(await resolveWorkflow(hash.toLowerCase(), context(""))).toMatchObject({
      hash,
      source: "hash",
    });
    expect(await resolveWorkflow(hash.slice(0, 6).toLowerCase(), context(""))).toMatchObject({
      hash,
      source: "hash",
    });
    // A name registered under the same letters wins over the prefix.
    const other = await resolveWorkflow(
      write("b/other.yaml", workflowYaml("other", "Hi")),
      context(""),
    );
    const prefix = hash.slice(0, 5);
    await registry.add(prefix, other.hash);
    expect(await resolveWorkflow(prefix, context(""))).toMatchObject({
      hash: other.hash,
      source: "registry",
    });
    expect((await resolveError("ZZZZZZ", "")).code).toBe("WORKFLOW_NOT_FOUND");
  });

  test("the nearest .workflows folder, walking up from cwd", async () => {
    write("repo/.git/HEAD", "ref: refs/heads/main\n");
    write("repo/.workflows/greet.yaml", workflowYaml("greet", "From the repo"));
    write("repo/pkg/.workflows/greet/index.yaml", workflowYaml("greet", "From the package"));
    mkdirSync(join(base, "repo/pkg/src/deep"), { recursive: true });

    const nearest = await resolveWorkflow("greet", context("repo/pkg/src/deep"));
    expect(nearest).toMatchObject({
      source: "workflows-dir",
      path: join(base, "repo/pkg/.workflows/greet/index.yaml"),
    });
    expect(nearest.payload.graph.$START?.new?.prompt).toBe("From the package");
    expect(await resolveWorkflow("greet", context("repo"))).toMatchObject({
      path: join(base, "repo/.workflows/greet.yaml"),
    });
  });

  test("the walk stops at the repository root", async () => {
    write(".workflows/greet.yml", workflowYaml("greet"));
    write("repo/.git/HEAD", "ref: refs/heads/main\n");
    mkdirSync(join(base, "repo/src"), { recursive: true });
    expect((await resolveWorkflow("greet", context(""))).source).toBe("workflows-dir");
    const error = await resolveError("greet", "repo/src");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
  });

  test("the registry, by name", async () => {
    const { hash } = await resolveWorkflow(
      write("elsewhere/greet.yaml", workflowYaml("greet")),
      context(""),
    );
    await registry.add("greet", hash);
    mkdirSync(join(base, "work"));
    expect(await resolveWorkflow("greet", context("work"))).toMatchObject({
      hash,
      source: "registry",
      path: null,
    });
  });

  test("a file wins over the registry and over a 13-character name that is not a stored workflow", async () => {
    const { hash } = await resolveWorkflow(
      write("elsewhere/greet.yaml", workflowYaml("greet", "Registered")),
      context(""),
    );
    await registry.add("greet", hash);
    write("work/greet/index.yaml", workflowYaml("greet", "Local"));
    expect(
      (await resolveWorkflow("greet", context("work"))).payload.graph.$START?.new?.prompt,
    ).toBe("Local");

    // A file named like a hash: the CAS has no workflow by that name, so the file is used.
    const hashLike = "0123456789ABC";
    write(`work/${hashLike}`, workflowYaml(hashLike));
    expect((await resolveWorkflow(hashLike, context("work"))).source).toBe("file");
    // A hash of a stored node that is not a workflow also falls through, and is reported.
    const textHash = await cas.putText("not a workflow");
    const error = await resolveError(textHash, "work");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
    expect(error.message).toContain(`CAS hash ${textHash}: a stored node, but not a workflow`);
  });

  test("an invalid file is WORKFLOW_INVALID with every error, and nothing is stored", async () => {
    const file = write("bad.yaml", workflowYaml("good").replace("role: $END", "role: $ENDD"));
    const error = await resolveError(file, "");
    expect(error.code).toBe("WORKFLOW_INVALID");
    expect(error.details?.errors).toEqual([
      'bad.yaml:12:13: edge greeter→done: unknown target role "$ENDD"',
      'bad.yaml:1:1: workflow name mismatch: file "bad.yaml" implies name "bad" but YAML declares name "good". Either rename the file to "good.yaml" or change the YAML `name` field to "bad"',
    ]);
    expect(error.message).toContain("(2 errors)");
    expect((await cas.verify()).checked).toBe(0);
  });

  test("not found lists what was tried and how to go on", async () => {
    write("repo/.git/HEAD", "x");
    write("repo/.workflows/other.yaml", workflowYaml("other"));
    const error = await resolveError("greet", "repo");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
    expect(error.message).toBe(
      [
        'workflow "greet" not found; tried:',
        `  - file ${join(base, "repo/greet")}: does not exist`,
        `  - .workflows/ folders: ${join(base, "repo/.workflows")}`,
        '  - registry: no workflow named "greet"',
      ].join("\n"),
    );
    expect(error.hint).toContain("uwf workflow list");
  });

  test("a misspelt name suggests the registered or .workflows/ name meant", async () => {
    write("repo/.git/HEAD", "x");
    write("repo/.workflows/review-pr.yaml", workflowYaml("review-pr"));
    const { hash } = await resolveWorkflow(
      write("elsewhere/greet.yaml", workflowYaml("greet")),
      context(""),
    );
    await registry.add("greet", hash);
    const fromFolder = await resolveError("reveiw-pr", "repo");
    expect(fromFolder.hint).toMatch(/^Did you mean "review-pr"\? Run `uwf workflow list`/);
    expect(fromFolder.details?.suggestion).toBe("review-pr");
    expect((await resolveError("gret", "repo")).hint).toMatch(/^Did you mean "greet"\?/);
    expect((await resolveError("unrelated", "repo")).hint).toMatch(/^Run `uwf workflow list`/);
  });

  test("a reference that is not a name is never used as a path component of .workflows/ or the registry", async () => {
    write("repo/.workflows/evil.yaml", workflowYaml("evil"));
    const error = await resolveError("../.workflows/evil", "repo/sub");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
    expect(error.message).toContain('"../.workflows/evil" is not a workflow name');
  });
});

describe("loadAndValidate", () => {
  test("reports parse errors as an invalid result and never stores anything", async () => {
    const file = write("broken.yaml", "name: broken\nroles: [\n");
    const result = await loadAndValidate(file);
    expect(result.valid).toBe(false);
    expect(result.errors[0]).toMatch(/^broken\.yaml:\d+:\d+: /);
    expect(result.definition).toBeNull();
  });

  test("returns the typed definition, real path and includes of a valid file", async () => {
    const dir = join(base, "with-includes");
    cpSync(fileURLToPath(new URL("./__fixtures__/includes/", import.meta.url)), dir, {
      recursive: true,
    });
    const result = await loadAndValidate(join(dir, "with-includes.yaml"));
    expect(result).toMatchObject({ valid: true, name: "with-includes", errors: [], warnings: [] });
    expect(result.path).toBe(join(dir, "with-includes.yaml"));
    expect(result.includes).toHaveLength(5);
  });

  test("a frontmatter ajv cannot compile makes the file invalid, naming the role", async () => {
    const file = write(
      "greet.yaml",
      workflowYaml("greet").replace("greeting: { type: string }", "greeting: { type: strng }"),
    );
    const result = await loadAndValidate(file);
    expect(result).toMatchObject({ valid: false, definition: null });
    expect(result.errors).toEqual([
      'greet.yaml:4:5: role "greeter" frontmatter is not a valid JSON Schema: at properties.greeting.type: "strng" is not a JSON Schema type (string, number, integer, boolean, object, array, null)',
    ]);
  });

  test("a folder holding index.yaml is loaded like the file", async () => {
    write("greet/index.yaml", workflowYaml("greet"));
    const result = await loadAndValidate(join(base, "greet"));
    expect(result).toMatchObject({ valid: true, path: join(base, "greet/index.yaml") });
  });

  test("a missing file is WORKFLOW_NOT_FOUND", async () => {
    await expect(loadAndValidate(join(base, "nope.yaml"))).rejects.toThrowError(
      expect.objectContaining({ code: "WORKFLOW_NOT_FOUND" }),
    );
  });
});
