import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ThreadPointer } from "@united-workforce/protocol";
import { isUwfError, newUlid } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Registry } from "../registry/registry.js";
import { ThreadStore } from "../threads/thread-store.js";
import { Cas } from "./cas.js";
import { collectGcRoots } from "./gc-roots.js";

let home: string;
let cas: Cas;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "uwf-gc-"));
  cas = Cas.open(home);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** start → workflow → role schema, plus two unreachable text nodes. */
function seed() {
  const role = cas.putSchema({ type: "object" });
  const workflow = cas.put(cas.builtin("workflow"), {
    name: "w",
    roles: { r: { frontmatter: role } },
    graph: {},
  });
  const start = cas.put(cas.builtin("start"), { workflow, prompt: "p", cwd: "/", createdAtMs: 0 });
  const garbage = [cas.putText("old prompt"), cas.putText("old body")].sort();
  return { role, workflow, start, garbage };
}

function pointer(start: string, workflowHash: string): ThreadPointer {
  const now = new Date(0).toISOString();
  return {
    thread: newUlid(),
    workflow: "w",
    workflowHash,
    start,
    head: start,
    status: "idle",
    currentRole: null,
    suspended: null,
    steps: 0,
    cwd: "/",
    createdAt: now,
    updatedAt: now,
  };
}

describe("gc", () => {
  it("dry run reports the unreachable nodes and deletes nothing", () => {
    const { start, garbage } = seed();
    const report = cas.gc([start], { dryRun: true });
    expect(report).toMatchObject({ dryRun: true, roots: 1, unreachable: garbage, deleted: 0 });
    expect(report.bytes).toBeGreaterThan(0);
    for (const hash of garbage) expect(cas.has(hash)).toBe(true);
  });

  it("deletes only what is unreachable, keeping built-in schemas", () => {
    const { start, workflow, role, garbage } = seed();
    const report = cas.gc([start], { dryRun: false });
    expect(report).toMatchObject({ dryRun: false, unreachable: garbage, deleted: 2 });
    for (const hash of garbage) expect(cas.has(hash)).toBe(false);
    for (const hash of [start, workflow, role, cas.builtin("text"), cas.builtin("workflow")]) {
      expect(cas.has(hash)).toBe(true);
    }
    expect(cas.verify().corrupt).toEqual([]);
    expect(cas.gc([start], { dryRun: false }).deleted).toBe(0);
  });

  it("keeps built-in schema nodes even with no roots", () => {
    cas.builtin("step");
    cas.putText("x");
    const report = cas.gc([], { dryRun: false });
    expect(report.deleted).toBe(1);
    expect(cas.has(cas.builtin("step"))).toBe(true);
    expect(cas.has(cas.builtin("text"))).toBe(true);
  });

  it("never deletes a node written after the store was listed", () => {
    const { start, garbage } = seed();
    let late = "";
    // Roots read lazily: a writer that stores a node and has not moved its pointer yet.
    const report = cas.gc(
      () => {
        late = cas.putText("written while gc runs");
        return [start];
      },
      { dryRun: false },
    );
    expect(report.unreachable).toEqual(garbage);
    expect(cas.has(late)).toBe(true);
  });

  it("refuses to run when a reachable node is missing, deleting nothing", () => {
    const { start, workflow, garbage } = seed();
    unlinkSync(join(home, "cas", workflow.slice(0, 2), `${workflow}.json`));
    let code: string | undefined;
    try {
      cas.gc([start], { dryRun: false });
    } catch (error) {
      code = isUwfError(error) ? error.code : undefined;
    }
    expect(code).toBe("CAS_CORRUPT");
    for (const hash of garbage) expect(cas.has(hash)).toBe(true);
  });
});

describe("collectGcRoots", () => {
  it("collects thread pointers and every registry version", () => {
    const { start, workflow } = seed();
    const threads = new ThreadStore(home);
    const forked = { ...pointer(start, workflow), forkedFrom: cas.putText("fork point") };
    threads.write(forked);
    const registry = new Registry(home);
    const v1 = cas.putText("v1");
    registry.add("w", v1);
    registry.add("w", workflow);
    expect(collectGcRoots(home)).toEqual([start, workflow, forked.forkedFrom, v1].sort());
  });

  it("is empty for a fresh home", () => {
    expect(collectGcRoots(home)).toEqual([]);
  });

  it("throws, naming the file, when a thread pointer is corrupt", () => {
    mkdirSync(join(home, "threads"));
    const file = join(home, "threads", `${newUlid()}.json`);
    writeFileSync(file, "{ half a poin");
    expect(() => collectGcRoots(home)).toThrow(file);
  });

  it("throws, naming the file, when a registry entry is corrupt", () => {
    mkdirSync(join(home, "workflows"));
    writeFileSync(join(home, "workflows", "w.json"), "[]");
    expect(() => collectGcRoots(home)).toThrow(join(home, "workflows", "w.json"));
  });
});

const fileOf = (hash: string) => join(home, "cas", hash.slice(0, 2), `${hash}.json`);

describe("gc grace period", () => {
  it("keeps unreachable nodes written within keepRecentMs and sweeps older ones", () => {
    const { start, garbage } = seed();
    const [fresh, old] = garbage as [string, string];
    const long = new Date(Date.now() - 3_600_000);
    utimesSync(fileOf(old), long, long);

    const report = cas.gc([start], { dryRun: false, keepRecentMs: 60_000 });
    expect(report.recent).toEqual([fresh]);
    expect(report.unreachable).toEqual([old]);
    expect(cas.has(fresh)).toBe(true);
    expect(cas.has(old)).toBe(false);
  });

  it("counts writing an existing node again as a new write", () => {
    const { start, garbage } = seed();
    const long = new Date(Date.now() - 3_600_000);
    for (const hash of garbage) utimesSync(fileOf(hash), long, long);
    cas.putText("old prompt");

    const report = cas.gc([start], { dryRun: true, keepRecentMs: 60_000 });
    expect(report.recent).toEqual([cas.putText("old prompt")]);
    expect(report.unreachable).toHaveLength(1);
  });
});
