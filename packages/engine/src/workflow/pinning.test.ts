import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { WorkflowPayload } from "@united-workforce/protocol";
import { type Cas, openStore, type RegistryStore } from "@united-workforce/store";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { type ResolveContext, resolveWorkflow } from "./resolve.js";

/** A workflow whose procedure and output schema come from included files. */
const INCLUDING = `name: greet
roles:
  greeter:
    procedure: !include procedure.md
    frontmatter: !include schema.yaml
graph:
  $START:
    new: { role: greeter, prompt: "Greet." }
    resume: { role: greeter, prompt: "Again." }
  greeter:
    done: { role: $END, prompt: "{{{greeting}}}" }
`;
const SCHEMA = `properties: { $status: { const: done }, greeting: { type: string } }
required: [$status, greeting]
`;

let base: string;
let cas: Cas;
let registry: RegistryStore;

beforeEach(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "uwf-pinning-")));
  const store = await openStore({ home: join(base, "home") });
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

function context(cwd = "", extra: Partial<ResolveContext> = {}): ResolveContext {
  return { cwd: join(base, cwd), cas, registry, ...extra };
}

describe("included files are pinned in the stored workflow", () => {
  test("the stored node holds the included text, and editing the file makes a new hash", async () => {
    const file = write("wf/greet.yaml", INCLUDING);
    write("wf/procedure.md", "Say hello warmly.\n");
    write("wf/schema.yaml", SCHEMA);
    const first = await resolveWorkflow(file, context());
    expect(first.payload.roles.greeter?.procedure).toBe("Say hello warmly.\n");

    write("wf/procedure.md", "Say hello briefly.\n");
    const second = await resolveWorkflow(file, context());
    expect(second.hash).not.toBe(first.hash);
    expect(second.payload.roles.greeter?.procedure).toBe("Say hello briefly.\n");
    // The first version is unchanged in the CAS: a thread pinned to it keeps its text.
    const pinned = await cas.getPayload<WorkflowPayload>(first.hash, "workflow");
    expect(pinned.roles.greeter?.procedure).toBe("Say hello warmly.\n");
  });

  test("deferWrite computes the hash without storing anything", async () => {
    const file = write("wf/greet.yaml", INCLUDING);
    write("wf/procedure.md", "Say hello.\n");
    write("wf/schema.yaml", SCHEMA);
    const deferred = await resolveWorkflow(file, context("", { deferWrite: true }));
    expect(deferred.unstored?.name).toBe("greet");
    expect(await cas.has(deferred.hash)).toBe(false);
    const stored = await resolveWorkflow(file, context());
    expect(stored.hash).toBe(deferred.hash);
    expect(stored.unstored).toBeNull();
    expect(await cas.has(stored.hash)).toBe(true);
  });
});

describe("a .workflows/ copy that shadows the registry", () => {
  const yaml = (prompt: string) =>
    INCLUDING.replace("procedure: !include procedure.md\n    ", "").replace(
      '"Greet."',
      `"${prompt}"`,
    );

  test("is resolved first, with a warning naming both hashes", async () => {
    write("project/.git/HEAD", "");
    const copy = write("project/.workflows/greet.yaml", yaml("Greet from the copy."));
    write("project/.workflows/schema.yaml", SCHEMA);
    const registered = write("elsewhere/greet.yaml", yaml("Greet from the registry."));
    write("elsewhere/schema.yaml", SCHEMA);
    const { hash: registeredHash } = await resolveWorkflow(registered, context());
    await registry.add("greet", registeredHash);

    const resolved = await resolveWorkflow("greet", context("project"));
    expect(resolved.source).toBe("workflows-dir");
    expect(resolved.warnings).toEqual([
      `${copy} (${resolved.hash}) shadows the registered workflow "greet" (${registeredHash}): commands run under ${join(base, "project")} that name "greet" use this file, not the registered one; run \`uwf workflow add ${copy}\` to register it, or remove the file to use the registry`,
    ]);

    await registry.add("greet", resolved.hash);
    const same = await resolveWorkflow("greet", context("project"));
    expect(same.warnings).toEqual([
      `${copy} shadows the registered workflow "greet" (same content, ${resolved.hash}): commands run under ${join(base, "project")} that name "greet" use this file, not versions added to the registry later`,
    ]);
  });

  test("is not worth a warning when the name is not registered", async () => {
    write("project/.git/HEAD", "");
    write("project/.workflows/greet.yaml", yaml("Greet."));
    write("project/.workflows/schema.yaml", SCHEMA);
    expect((await resolveWorkflow("greet", context("project"))).warnings).toEqual([]);
  });
});
