import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type PostgresServer,
  REPO_ROOT,
  runUwf,
  startPostgres,
  type TempHome,
  tempHome,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

/** `uwf store migrate` between a filesystem store and a real PostgreSQL server, both ways. */

const HELLO = join(REPO_ROOT, "examples/hello.yaml");
/** hello.yaml with another description: a second version of the workflow. */
const helloV2 = () =>
  readFileSync(HELLO, "utf8").replace("description: One agent", "description: Still one agent");

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

let temp: TempHome;
let mock: string;
beforeEach(() => {
  temp = tempHome();
  const scenario = writeScenario(temp.home, [
    { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    { role: "greeter", output: { $status: "done", greeting: "Hello again" } },
  ]);
  mock = `uwf-mock --scenario ${scenario}`;
});
afterEach(() => temp.cleanup());

async function uwf(args: string[], env: Record<string, string> = {}, code = 0) {
  const result = await runUwf(args, { home: temp.home, env });
  expect(result.code, `uwf ${args.join(" ")}: ${result.stderr}`).toBe(code);
  return result;
}

async function json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  return JSON.parse((await uwf([...args, "--format", "json"], env)).stdout) as T;
}

/** A filesystem store with a registered workflow (two versions) and a completed thread. */
async function fillFilesystemStore(): Promise<{ thread: string; steps: unknown }> {
  await uwf(["workflow", "add", HELLO]);
  const edited = join(temp.home, "v2", "hello.yaml");
  (await import("node:fs")).mkdirSync(join(temp.home, "v2"));
  writeFileSync(edited, helloV2());
  await uwf(["workflow", "add", edited]);
  const thread = (await uwf(["thread", "start", "hello", "-p", "Greet Ada."])).stdout.trim();
  await uwf(["thread", "exec", thread, "--agent", mock]);
  return { thread, steps: await json(["step", "list", thread]) };
}

describe("uwf store migrate", () => {
  it("copies a filesystem store into PostgreSQL and back, verifying every node", async () => {
    const { thread, steps } = await fillFilesystemStore();
    const url = await server.createDatabase();
    const pg = { UWF_STORE: url };
    const history = await json(["workflow", "history", "hello"]);

    const copied = await json<Record<string, number | string>>(["store", "migrate", "--to", url]);
    expect(copied).toMatchObject({ to: url, threads: 1, threadsSkipped: 0, workflows: 1 });
    expect(copied.nodes).toBe(copied.nodesWritten);
    // The copy is the same store: the same thread, steps, history, and a clean verify.
    expect(await json(["step", "list", thread], pg)).toEqual(steps);
    expect(await json(["workflow", "history", "hello"], pg)).toEqual(history);
    expect((await json<{ corrupt: unknown[] }>(["cas", "verify"], pg)).corrupt).toEqual([]);

    // A second run copies nothing new.
    const again = await json<Record<string, number>>(["store", "migrate", "--to", url]);
    expect(again).toMatchObject({ nodesWritten: 0, threadsSkipped: 1, workflowsSkipped: 1 });

    // The thread goes on in PostgreSQL, then everything comes back to a fresh filesystem store.
    await uwf(["thread", "resume", thread, "--agent", mock], pg);
    const moved = await json(["step", "list", thread], pg);
    for (const name of ["cas", "threads", "workflows"]) {
      rmSync(join(temp.home, name), { recursive: true, force: true });
    }
    await json(["store", "migrate", "--to", "fs"], pg);
    expect(await json(["step", "list", thread])).toEqual(moved);
    expect(await json(["workflow", "history", "hello"])).toEqual(history);
    expect((await json<{ corrupt: unknown[] }>(["cas", "verify"])).corrupt).toEqual([]);
  });

  it("never overwrites a different workflow in the target, and says which", async () => {
    await uwf(["workflow", "add", HELLO]);
    const url = await server.createDatabase();
    const other = tempHome();
    try {
      const edited = join(other.home, "hello.yaml");
      writeFileSync(edited, helloV2());
      const registered = await runUwf(["workflow", "add", edited], {
        home: other.home,
        env: { UWF_STORE: url },
      });
      expect(registered.code, registered.stderr).toBe(0);
    } finally {
      other.cleanup();
    }
    const refused = await uwf(["store", "migrate", "--to", url, "--format", "json"], {}, 1);
    // Progress lines come first on stderr; the error document is the last line.
    const error = JSON.parse(refused.stderr.trim().split("\n").at(-1)!).error;
    expect(error).toMatchObject({ code: "STORE_CONFLICT" });
    expect(readdirSync(join(temp.home, "workflows"))).toEqual(["hello.json"]);
  });
});
