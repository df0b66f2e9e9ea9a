import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@united-workforce/store";
import {
  appendStep,
  type PostgresServer,
  runUwf,
  seedThread,
  startPostgres,
  type WorkflowFixture,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { storeBackends } from "../src/store-backends.js";

/** `thread export` and `usage` on PostgreSQL read many nodes a statement, not one. */

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres({ countStatements: true });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function machine(): string {
  const home = mkdtempSync(join(tmpdir(), "uwf-pg-walk-"));
  homes.push(home);
  return home;
}

const SOLO: WorkflowFixture = {
  name: "solo",
  roles: {
    solo: {
      description: "works",
      frontmatter: {
        type: "object",
        required: ["$status"],
        properties: { $status: { type: "string" }, n: { type: "number" } },
      },
    },
  },
  graph: {
    $START: { new: { role: "solo", prompt: "Go." } },
    solo: { again: { role: "solo", prompt: "Again." } },
  },
};

async function uwf(home: string, url: string, args: string[]) {
  const result = await runUwf(args, { home, env: { UWF_STORE: url } });
  if (result.code !== 0) {
    throw new Error(`uwf ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  }
  return result.stdout.trim();
}

/** The statements that read nodes. */
const nodeReads = (statements: string[]) => statements.filter((s) => s.includes("uwf_cas_nodes"));

async function withStore<T>(home: string, url: string, work: (store: Store) => Promise<T>) {
  const store = await openStore({ home, url, backends: storeBackends });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

describe("batched walks on PostgreSQL", () => {
  it("exports a 300-step thread reading its nodes 500 a statement, and it imports", async () => {
    const url = await server.createDatabase();
    const home = machine();
    const thread = await withStore(home, url, async (store) => {
      const { thread } = await seedThread(store, { workflow: SOLO, prompt: "p", cwd: home });
      for (let n = 0; n < 300; n++) {
        await appendStep(store, thread, { role: "solo", output: { $status: "again", n } });
      }
      return thread;
    });
    const file = join(home, "long.uwf-bundle");
    await server.activity(url);
    const doc = JSON.parse(
      await uwf(home, url, ["thread", "export", thread, "-o", file, "--format", "json"]),
    );
    const { statements } = await server.activity(url);
    expect(doc.nodes).toBeGreaterThan(500);
    // Which nodes (one statement), then their bytes 500 a statement.
    expect(nodeReads(statements).length).toBeLessThanOrEqual(2 + Math.ceil(doc.nodes / 500));
    expect(readFileSync(file, "utf8").split("\n")).toHaveLength(doc.nodes + 2);
    const other = machine();
    await uwf(other, "fs", ["thread", "import", file]);
    await uwf(other, "fs", ["thread", "verify", thread]);
  });

  it("sums usage reading steps in batches, then only the steps a thread added", async () => {
    const url = await server.createDatabase();
    const home = machine();
    const threads = await withStore(home, url, async (store) => {
      const threads: string[] = [];
      for (let t = 0; t < 40; t++) {
        const { thread } = await seedThread(store, { workflow: SOLO, prompt: "p", cwd: home });
        await appendStep(store, thread, { role: "solo", output: { $status: "again", n: t } });
        threads.push(thread);
      }
      const { thread: long } = await seedThread(store, { workflow: SOLO, prompt: "p", cwd: home });
      for (let n = 0; n < 30; n++) {
        await appendStep(store, long, { role: "solo", output: { $status: "again", n } });
      }
      threads.push(long);
      return threads;
    });
    await server.activity(url);
    const cold = JSON.parse(await uwf(home, url, ["usage", "--by", "thread", "--format", "json"]));
    expect(cold.total.steps).toBe(70);
    expect(
      cold.rows.find((row: { key: { thread: string } }) => row.key.thread === threads[40]),
    ).toMatchObject({ steps: 30 });
    // Each round, the chains' next steps in one statement and their details in another; after
    // four rounds, the long chain's steps found by their refs (one statement) and read at once.
    const coldReads = (await server.activity(url)).statements;
    expect(nodeReads(coldReads)).toHaveLength(4 * 2 + 2);
    expect(coldReads.filter((s) => s.startsWith("with recursive"))).toHaveLength(1);
    await withStore(home, url, (store) =>
      appendStep(store, threads[7]!, { role: "solo", output: { $status: "again", n: 99 } }),
    );
    await server.activity(url);
    const warm = JSON.parse(await uwf(home, url, ["usage", "--format", "json"]));
    expect(warm.total.steps).toBe(71);
    expect(nodeReads((await server.activity(url)).statements)).toHaveLength(2);
    await uwf(home, url, ["usage"]);
    expect(nodeReads((await server.activity(url)).statements)).toHaveLength(0);
  });
});
