import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Cas, Registry } from "@united-workforce/store";
import { UwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadWorkflowFile } from "./load.js";
import { materialiseWorkflow } from "./materialise.js";
import { loadAndValidate, type ResolveContext, resolveWorkflow } from "./resolve.js";
import { validateWorkflow, type WorkflowDefinition } from "./validate.js";

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
let registry: Registry;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "uwf-resolve-")));
  home = join(base, "home");
  cas = Cas.open(home);
  registry = new Registry(home);
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

function resolveError(ref: string, cwd: string): UwfError {
  try {
    resolveWorkflow(ref, context(cwd));
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
  test("stores role schemas as schema nodes and the workflow as a workflow node", () => {
    const hash = materialiseWorkflow(cas, definitionOf(join(EXAMPLES, "solve-issue.yaml")));
    const node = cas.get(hash);
    expect(node.type).toBe(cas.builtin("workflow"));
    const payload = cas.getPayload<{ roles: Record<string, { frontmatter: string }> }>(
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
    const planner = cas.get(payload.roles.planner?.frontmatter as string);
    expect(planner.type).toBe("schema");
    expect(planner.payload).toMatchObject({ oneOf: expect.any(Array) });
  });

  test("is deterministic: the same YAML, in any key order, gives the same hash", () => {
    const first = materialiseWorkflow(cas, definitionOf(join(EXAMPLES, "debate.yaml")));
    const again = materialiseWorkflow(
      Cas.open(join(base, "other-home")),
      definitionOf(join(EXAMPLES, "debate.yaml")),
    );
    expect(again).toBe(first);
    const definition = definitionOf(join(EXAMPLES, "hello.yaml"));
    const { name, description, roles, graph } = definition;
    const reordered = JSON.parse(JSON.stringify({ graph, roles, description, name }));
    expect(materialiseWorkflow(cas, reordered)).toBe(materialiseWorkflow(cas, definition));
  });

  test("a frontmatter ajv cannot compile is WORKFLOW_INVALID naming the role", () => {
    const definition = definitionOf(join(EXAMPLES, "hello.yaml"));
    const greeter = definition.roles.greeter;
    if (greeter === undefined) throw new Error("hello has a greeter");
    greeter.frontmatter = { ...greeter.frontmatter, minProperties: "many" };
    expect(() => materialiseWorkflow(cas, definition)).toThrowError(
      expect.objectContaining({
        code: "WORKFLOW_INVALID",
        message: expect.stringContaining('role "greeter" frontmatter is not a valid JSON Schema'),
      }),
    );
  });
});

describe("resolveWorkflow", () => {
  test("a file path: loaded, validated and materialised", () => {
    write("repo/flows/greet.yaml", workflowYaml("greet"));
    const resolved = resolveWorkflow("flows/greet.yaml", context("repo"));
    expect(resolved).toMatchObject({
      source: "file",
      path: join(base, "repo/flows/greet.yaml"),
      warnings: [],
    });
    expect(resolved.payload.name).toBe("greet");
    expect(cas.getPayload(resolved.hash, "workflow")).toEqual(resolved.payload);
  });

  test("a folder path resolves to its index.yaml", () => {
    write("repo/greet/index.yaml", workflowYaml("greet"));
    expect(resolveWorkflow("greet", context("repo"))).toMatchObject({
      source: "file",
      path: join(base, "repo/greet/index.yaml"),
    });
  });

  test("a stored workflow hash", () => {
    const { hash } = resolveWorkflow(write("greet.yaml", workflowYaml("greet")), context(""));
    const resolved = resolveWorkflow(hash, context(""));
    expect(resolved).toMatchObject({ hash, source: "hash", path: null });
    expect(resolved.payload.name).toBe("greet");
  });

  test("the nearest .workflows folder, walking up from cwd", () => {
    write("repo/.git/HEAD", "ref: refs/heads/main\n");
    write("repo/.workflows/greet.yaml", workflowYaml("greet", "From the repo"));
    write("repo/pkg/.workflows/greet/index.yaml", workflowYaml("greet", "From the package"));
    mkdirSync(join(base, "repo/pkg/src/deep"), { recursive: true });

    const nearest = resolveWorkflow("greet", context("repo/pkg/src/deep"));
    expect(nearest).toMatchObject({
      source: "workflows-dir",
      path: join(base, "repo/pkg/.workflows/greet/index.yaml"),
    });
    expect(nearest.payload.graph.$START?.new?.prompt).toBe("From the package");
    expect(resolveWorkflow("greet", context("repo"))).toMatchObject({
      path: join(base, "repo/.workflows/greet.yaml"),
    });
  });

  test("the walk stops at the repository root", () => {
    write(".workflows/greet.yml", workflowYaml("greet"));
    write("repo/.git/HEAD", "ref: refs/heads/main\n");
    mkdirSync(join(base, "repo/src"), { recursive: true });
    expect(resolveWorkflow("greet", context("")).source).toBe("workflows-dir");
    const error = resolveError("greet", "repo/src");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
  });

  test("the registry, by name", () => {
    const { hash } = resolveWorkflow(
      write("elsewhere/greet.yaml", workflowYaml("greet")),
      context(""),
    );
    registry.add("greet", hash);
    mkdirSync(join(base, "work"));
    expect(resolveWorkflow("greet", context("work"))).toMatchObject({
      hash,
      source: "registry",
      path: null,
    });
  });

  test("a file wins over the registry and over a 13-character name that is not a stored workflow", () => {
    const { hash } = resolveWorkflow(
      write("elsewhere/greet.yaml", workflowYaml("greet", "Registered")),
      context(""),
    );
    registry.add("greet", hash);
    write("work/greet/index.yaml", workflowYaml("greet", "Local"));
    expect(resolveWorkflow("greet", context("work")).payload.graph.$START?.new?.prompt).toBe(
      "Local",
    );

    // A file named like a hash: the CAS has no workflow by that name, so the file is used.
    const hashLike = "0123456789ABC";
    write(`work/${hashLike}`, workflowYaml(hashLike));
    expect(resolveWorkflow(hashLike, context("work")).source).toBe("file");
    // A hash of a stored node that is not a workflow also falls through, and is reported.
    const textHash = cas.putText("not a workflow");
    const error = resolveError(textHash, "work");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
    expect(error.message).toContain(`CAS hash ${textHash}: a stored node, but not a workflow`);
  });

  test("an invalid file is WORKFLOW_INVALID with every error, and nothing is stored", () => {
    const file = write("bad.yaml", workflowYaml("good").replace("role: $END", "role: $ENDD"));
    const error = resolveError(file, "");
    expect(error.code).toBe("WORKFLOW_INVALID");
    expect(error.details?.errors).toEqual([
      'edge greeter→done: unknown target role "$ENDD"',
      'workflow name mismatch: file "bad.yaml" implies name "bad" but YAML declares name "good". Either rename the file to "good.yaml" or change the YAML `name` field to "bad"',
    ]);
    expect(error.message).toContain("(2 errors)");
    expect(cas.verify().checked).toBe(0);
  });

  test("not found lists what was tried and how to go on", () => {
    write("repo/.git/HEAD", "x");
    write("repo/.workflows/other.yaml", workflowYaml("other"));
    const error = resolveError("greet", "repo");
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

  test("a reference that is not a name is never used as a path component of .workflows/ or the registry", () => {
    write("repo/.workflows/evil.yaml", workflowYaml("evil"));
    const error = resolveError("../.workflows/evil", "repo/sub");
    expect(error.code).toBe("WORKFLOW_NOT_FOUND");
    expect(error.message).toContain('"../.workflows/evil" is not a workflow name');
  });
});

describe("loadAndValidate", () => {
  test("reports parse errors as an invalid result and never stores anything", () => {
    const file = write("broken.yaml", "name: broken\nroles: [\n");
    const result = loadAndValidate(file);
    expect(result.valid).toBe(false);
    expect(result.errors[0]).toMatch(/^broken\.yaml:\d+:\d+: /);
    expect(result.definition).toBeNull();
  });

  test("returns the typed definition, real path and includes of a valid file", () => {
    const dir = join(base, "with-includes");
    cpSync(fileURLToPath(new URL("./__fixtures__/includes/", import.meta.url)), dir, {
      recursive: true,
    });
    const result = loadAndValidate(join(dir, "with-includes.yaml"));
    expect(result).toMatchObject({ valid: true, name: "with-includes", errors: [], warnings: [] });
    expect(result.path).toBe(join(dir, "with-includes.yaml"));
    expect(result.includes).toHaveLength(5);
  });

  test("a frontmatter ajv cannot compile makes the file invalid, naming the role", () => {
    const file = write(
      "greet.yaml",
      workflowYaml("greet").replace("greeting: { type: string }", "greeting: { type: strng }"),
    );
    const result = loadAndValidate(file);
    expect(result).toMatchObject({ valid: false, definition: null });
    expect(result.errors).toEqual([
      expect.stringMatching(/^role "greeter" frontmatter is not a valid JSON Schema: schema /),
    ]);
  });

  test("a folder holding index.yaml is loaded like the file", () => {
    write("greet/index.yaml", workflowYaml("greet"));
    const result = loadAndValidate(join(base, "greet"));
    expect(result).toMatchObject({ valid: true, path: join(base, "greet/index.yaml") });
  });

  test("a missing file is WORKFLOW_NOT_FOUND", () => {
    expect(() => loadAndValidate(join(base, "nope.yaml"))).toThrowError(
      expect.objectContaining({ code: "WORKFLOW_NOT_FOUND" }),
    );
  });
});
