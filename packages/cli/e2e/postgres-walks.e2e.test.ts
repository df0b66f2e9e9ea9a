import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DocumentOf, StepPayload, ThreadVerifyDocument } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import {
  findPostgresBin,
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  startPostgres,
} from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * History walks on PostgreSQL read many nodes a statement: at most one statement per 500 nodes
 * walked, and a few more for the pointer, the schema check and the like.
 */

/** Statements any command spends besides its walk (connect checks, pointers, registry). */
const OVERHEAD = 12;
const LONG_STEPS = 2_000;
const SHORT_THREADS = 300;
const SHORT_STEPS = 3;
const GARBAGE = 1_200;

interface Fixtures {
  buildLongThread(store: Store, workflow: string, steps: number, cwd: string): Promise<string>;
  buildManyShortThreads(
    store: Store,
    workflow: string,
    count: number,
    steps: number,
    cwd: string,
  ): Promise<void>;
}

let server: PostgresServer;
let url: string;
let home: string;
let long: string;
let storedNodes: number;

beforeAll(async () => {
  server = await startPostgres({ countStatements: true });
  url = await server.createDatabase();
  home = mkdtempSync(join(tmpdir(), "uwf-pg-walks-"));
  const added = JSON.parse(
    await uwf(["workflow", "add", join(REPO_ROOT, "bench/loop.yaml"), "--format", "json"]),
  );
  // The benchmark's builders write straight through the store API: seconds, not minutes.
  const fixtures = await benchFixtures();
  const store = await open(home, url);
  try {
    long = await fixtures.buildLongThread(store, added.hash, LONG_STEPS, home);
    await fixtures.buildManyShortThreads(store, added.hash, SHORT_THREADS, SHORT_STEPS, home);
    // Garbage for gc to sweep: nodes nothing points to.
    const garbage = store.cas.batch();
    for (let i = 0; i < GARBAGE; i++) garbage.putText(`garbage ${i}`);
    await garbage.flush();
    storedNodes = 0;
    for await (const _ of store.cas.backend.list()) storedNodes++;
  } finally {
    await store.close();
  }
}, 300_000);

afterAll(async () => {
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

async function uwf(args: string[], store = url, at = home): Promise<string> {
  const result = await runUwf(args, { home: at, env: store === "" ? {} : { UWF_STORE: store } });
  if (result.code !== 0) {
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  }
  return result.stdout.trim();
}

/** Runs `args` and returns its JSON output and the statements it ran. */
async function counted<T>(args: string[]): Promise<{ doc: T; statements: string[] }> {
  await server.activity(url);
  const doc = JSON.parse(await uwf([...args, "--format", "json"])) as T;
  const { statements } = await server.activity(url);
  return { doc, statements };
}

const benchFixtures = async () => (await import(join(REPO_ROOT, "bench/fixtures.mjs"))) as Fixtures;

const open = (at: string, store: string) =>
  openStore({
    home: at,
    ...(store === "" ? {} : { url: store }),
    host: "test",
    backends: { postgres: () => import("@united-workforce/store-postgres") },
  });

const budget = (nodes: number) => Math.ceil(nodes / 500) + OVERHEAD;

describe("history walks on PostgreSQL", () => {
  it("verifies a long thread in one statement per stretch of its chain", async () => {
    const { doc, statements } = await counted<ThreadVerifyDocument>(["thread", "verify", long]);
    expect(doc).toMatchObject({ ok: true, threads: [{ steps: LONG_STEPS }] });
    const nodes = doc.threads[0]!.nodes;
    expect(nodes).toBeGreaterThan(2 * LONG_STEPS);
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(budget(nodes));
  }, 120_000);

  it("verifies every thread reading groups of threads together", async () => {
    const { doc, statements } = await counted<ThreadVerifyDocument>(["thread", "verify", "--all"]);
    expect(doc.ok).toBe(true);
    expect(doc.threads).toHaveLength(SHORT_THREADS + 1);
    const nodes = doc.threads.reduce((sum, t) => sum + t.nodes, 0);
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(budget(nodes));
  }, 120_000);

  it("searches every thread's history in batches", async () => {
    const { doc, statements } = await counted<DocumentOf<"thread grep">>([
      "thread",
      "grep",
      "needle",
    ]);
    expect(doc.matches.length).toBeGreaterThan(0);
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(budget(doc.nodes));
  }, 120_000);

  it("lists a long thread's steps (the web view's walk) in stretches", async () => {
    const { doc, statements } = await counted<DocumentOf<"step list">>(["step", "list", long]);
    expect(doc.steps).toHaveLength(LONG_STEPS);
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(budget(2 * LONG_STEPS));
  }, 120_000);

  it("re-hashes every stored node many nodes a statement", async () => {
    const { doc, statements } = await counted<DocumentOf<"cas verify">>(["cas", "verify"]);
    expect(doc).toMatchObject({ checked: storedNodes, ok: storedNodes, corrupt: [] });
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(budget(storedNodes));
  }, 120_000);

  it("marks and sweeps many nodes a statement", async () => {
    const dry = await counted<DocumentOf<"cas gc">>(["cas", "gc", "--keep-recent", "1h"]);
    expect(dry.doc).toMatchObject({ unreachable: [], deleted: 0 });
    expect(dry.doc.recent).toHaveLength(GARBAGE);
    expect(dry.statements.length, dry.statements.join("\n")).toBeLessThanOrEqual(
      budget(storedNodes),
    );
    const swept = await counted<DocumentOf<"cas gc">>(["cas", "gc", "--yes", "--keep-recent", "0"]);
    expect(swept.doc).toMatchObject({ deleted: GARBAGE, reachable: storedNodes - GARBAGE });
    expect(swept.statements.length, swept.statements.join("\n")).toBeLessThanOrEqual(
      budget(storedNodes),
    );
  }, 120_000);

  it("reports a damaged chain as the filesystem does, across stretches", async () => {
    const reports: ThreadVerifyDocument[] = [];
    for (const backend of ["fs", "postgres"] as const) {
      const at = mkdtempSync(join(tmpdir(), `uwf-walks-damage-${backend}-`));
      try {
        const store = backend === "fs" ? "" : await server.createDatabase();
        const added = JSON.parse(
          await uwf(
            ["workflow", "add", join(REPO_ROOT, "bench/loop.yaml"), "--format", "json"],
            store,
            at,
          ),
        );
        const opened = await open(at, store);
        let thread: string;
        let lost: string;
        let damaged: string;
        try {
          thread = await (await benchFixtures()).buildLongThread(opened, added.hash, 700, at);
          const chain: { hash: string; step: StepPayload }[] = [];
          let hash: string | null = (await opened.threads.get(thread)).head;
          while (hash !== null) {
            const step: StepPayload = await opened.cas.getPayload(hash, "step");
            chain.push({ hash, step });
            hash = step.prev;
          }
          // An output gone in the second stretch, a step cut short in the fourth.
          lost = chain[300]!.step.output;
          damaged = chain[500]!.hash;
        } finally {
          await opened.close();
        }
        if (backend === "fs") {
          rmSync(join(at, "cas", lost.slice(0, 2), `${lost}.json`));
          const file = join(at, "cas", damaged.slice(0, 2), `${damaged}.json`);
          truncateSync(file, 40);
        } else {
          psql(
            store,
            `delete from uwf_cas_nodes where hash = '${lost}';
             update uwf_cas_nodes set bytes = substring(bytes from 1 for 40) where hash = '${damaged}'`,
          );
        }
        const run = await runUwf(["thread", "verify", thread, "--format", "json"], {
          home: at,
          env: store === "" ? {} : { UWF_STORE: store },
        });
        expect(run.code).toBe(1);
        reports.push(JSON.parse(run.stdout));
      } finally {
        rmSync(at, { recursive: true, force: true });
      }
    }
    const [fs, postgres] = reports.map((doc) => ({
      steps: doc.threads[0]!.steps,
      nodes: doc.threads[0]!.nodes,
      problems: doc.threads[0]!.problems.map((p) => [p.step, p.kind]),
    }));
    expect(fs!.problems).toEqual([
      [200, "corrupt"],
      [400, "missing"],
    ]);
    expect(postgres).toEqual(fs);
  }, 120_000);
});

/** Run SQL on a database of the test server, as a tampering hand would. */
function psql(database: string, sql: string): void {
  const { bin } = findPostgresBin();
  const { port, pathname } = new URL(database);
  execFileSync(join(bin, "psql"), [
    "-X",
    "-q",
    "-h",
    "127.0.0.1",
    "-p",
    port,
    "-U",
    "uwf",
    "-d",
    pathname.slice(1),
    "-c",
    sql,
  ]);
}
