import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processIdentity } from "@united-workforce/store";
import {
  REPO_ROOT,
  type RunResult,
  runUwf,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const REVIEW = fileURLToPath(new URL("./fixtures/workflow/valid/review.yaml", import.meta.url));
const HASH = /^[0-9A-HJKMNP-TV-Z]{13}$/;
const HASH_RULE =
  "a CAS hash (13 Crockford Base32 characters: 0-9 and A-Z without I, L, O, U; or a unique prefix of 4 or more)";
const ABSENT = "0000000000000";

let home: TempHome;
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, "packages/cli/dist/bundle/main.cjs"))) {
    throw new Error("packages/cli/dist/bundle is missing: run `pnpm build` first");
  }
});
beforeEach(() => {
  home = tempHome();
});
afterEach(() => home.cleanup());

function uwf(args: string[], options: { input?: string } = {}): Promise<RunResult> {
  return runUwf(args, { home: home.home, cwd: home.home, ...options });
}

function json<T = Record<string, unknown>>(text: string): T {
  return JSON.parse(text) as T;
}

/** Run and expect success; the trimmed stdout (a hash, for the put commands). */
async function ok(args: string[], options: { input?: string } = {}): Promise<string> {
  const result = await uwf(args, options);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return result.stdout.trim();
}

const fileOf = (hash: string) => join(home.home, "cas", hash.slice(0, 2), `${hash}.json`);

function storedHashes(): string[] {
  const root = join(home.home, "cas");
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .flatMap((shard) => readdirSync(join(root, shard)))
    .map((name) => name.replace(/\.json$/, ""))
    .sort();
}

async function addReview(): Promise<string> {
  writeFileSync(join(home.home, "review.yaml"), readFileSync(REVIEW, "utf8"));
  return json<{ hash: string }>(await ok(["workflow", "add", "review.yaml", "--format", "json"]))
    .hash;
}

const SCHEMA = {
  type: "object",
  properties: { title: { type: "string" }, stars: { type: "integer", minimum: 1 } },
  required: ["title", "stars"],
  additionalProperties: false,
};

describe("uwf cas: storing and reading nodes", () => {
  it("prints a large text whole through a pipe before it exits", async () => {
    // Several times a pipe's buffer: uwf exits as soon as a command returns, so its output
    // must have been written by then, not queued.
    const text = `${"0123456789abcdef".repeat(256 * 1024)}end\n`;
    writeFileSync(join(home.home, "big.txt"), text);
    const hash = await ok(["cas", "put-text", "-f", "big.txt"]);
    const got = await uwf(["cas", "get", hash]);
    expect(got.code).toBe(0);
    expect(got.stdout.length).toBe(text.length);
    expect(got.stdout === text).toBe(true);
  });

  it("round-trips text: put-text prints the hash, get prints the text raw", async () => {
    const text = "line one\n  «line two» with `code`\n";
    const fromStdin = await ok(["cas", "put-text"], { input: text });
    expect(fromStdin).toMatch(HASH);
    writeFileSync(join(home.home, "notes.md"), text);
    expect(await ok(["cas", "put-text", "-f", "notes.md"])).toBe(fromStdin);
    expect(await ok(["cas", "put-text", text])).toBe(fromStdin);

    const got = await uwf(["cas", "get", fromStdin]);
    expect(got.code).toBe(0);
    expect(got.stdout).toBe(text);
    const doc = json(await ok(["cas", "get", fromStdin, "--format", "json"]));
    expect(doc).toEqual({ hash: fromStdin, type: expect.stringMatching(HASH), payload: text });

    const put = json(await ok(["cas", "put-text", "x", "--format", "json"]));
    expect(put).toEqual({ hash: expect.stringMatching(HASH), type: doc.type });
  });

  it("has: exit 0 when stored, 1 when not", async () => {
    const hash = await ok(["cas", "put-text", "present"]);
    const yes = await uwf(["cas", "has", hash]);
    expect(yes).toMatchObject({ code: 0, stdout: "yes\n", stderr: "" });
    const no = await uwf(["cas", "has", ABSENT]);
    expect(no).toMatchObject({ code: 1, stdout: "no\n", stderr: "" });
    const doc = await uwf(["cas", "has", ABSENT, "--format", "json"]);
    expect(doc.code).toBe(1);
    expect(json(doc.stdout)).toEqual({ hash: ABSENT, exists: false });
  });

  it("stores a JSON Schema, then payloads valid against it; refuses an invalid one (exit 3)", async () => {
    const schema = await ok(["cas", "put", "--type", "schema"], { input: JSON.stringify(SCHEMA) });
    expect(schema).toMatch(HASH);
    expect(json(await ok(["cas", "get", schema, "--format", "json"]))).toEqual({
      hash: schema,
      type: "schema",
      payload: SCHEMA,
    });

    const payload = { title: "Dune", stars: 5 };
    const node = await ok(["cas", "put", "--type", schema], { input: JSON.stringify(payload) });
    expect(json(await ok(["cas", "get", node, "--format", "json"]))).toEqual({
      hash: node,
      type: schema,
      payload,
    });
    // Key order does not matter: the same canonical JSON, the same hash.
    expect(
      await ok(["cas", "put", "--type", schema], { input: '{"stars":5,"title":"Dune"}' }),
    ).toBe(node);

    const before = storedHashes();
    // Errors come in the order of the stored (canonical, key-sorted) schema.
    const invalid = await uwf(["cas", "put", "--type", schema], {
      input: JSON.stringify({ title: 7, stars: 0 }),
    });
    expect(invalid.code).toBe(3);
    expect(invalid.stdout).toBe("");
    expect(invalid.stderr).toBe(
      [
        `error: payload does not match schema ${schema}: /stars: must be >= 1; /title: must be string`,
        `hint: fix the payload (\`uwf cas get ${schema}\` prints the schema it must match)`,
        "",
      ].join("\n"),
    );
    const missing = await uwf(["cas", "put", "--type", schema, "--format", "json"], {
      input: "{}",
    });
    expect(missing.code).toBe(3);
    expect(json<{ error: unknown }>(missing.stderr).error).toMatchObject({
      code: "NODE_INVALID",
      message: expect.stringContaining("must have required property 'title'"),
    });
    expect(storedHashes()).toEqual(before);
  });

  it("refuses a schema ajv cannot compile (exit 3) and input that is not JSON (exit 2)", async () => {
    const bad = await uwf(["cas", "put", "--type", "schema"], { input: '{"type":"objekt"}' });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/^error: schema [0-9A-Z]{13} cannot be compiled: /);
    const notJson = await uwf(["cas", "put", "--type", "schema"], { input: "{type: object" });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^error: stdin is not valid JSON: /);
    expect(notJson.stderr).toContain("use `uwf cas put-text` for plain text");
  });

  it("stores a whole node { type, payload }, the same as --type with the payload", async () => {
    const schema = await ok(["cas", "put", "--type", "schema"], { input: JSON.stringify(SCHEMA) });
    const payload = { title: "Emma", stars: 4 };
    writeFileSync(join(home.home, "node.json"), JSON.stringify({ type: schema, payload }));
    const whole = await ok(["cas", "put", "node.json"]);
    expect(whole).toBe(
      await ok(["cas", "put", "--type", schema], { input: JSON.stringify(payload) }),
    );

    const invalid = await uwf(["cas", "put", "-"], {
      input: JSON.stringify({ type: schema, payload: { title: "Emma" } }),
    });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain("must have required property 'stars'");

    const bare = await uwf(["cas", "put"], { input: JSON.stringify(payload) });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(
      /^error: input must be a node \{"type": …, "payload": …\} when --type is not given\nhint: Pass --type/,
    );
  });

  it("refs and walk show a workflow's role schema nodes", async () => {
    const workflow = await addReview();
    const shown = json<{ roleDetails: Record<string, { frontmatter: string }> }>(
      await ok(["workflow", "show", workflow, "--format", "json"]),
    );
    const roleSchemas = Object.values(shown.roleDetails).map((r) => r.frontmatter);
    expect(roleSchemas).toHaveLength(2);

    const refs = json<{ hash: string; refs: string[] }>(
      await ok(["cas", "refs", workflow, "--format", "json"]),
    );
    expect(refs.hash).toBe(workflow);
    const [workflowType, ...fields] = refs.refs;
    expect(fields.sort()).toEqual([...roleSchemas].sort());
    expect((await uwf(["cas", "refs", workflow])).stdout).toBe(`${refs.refs.join("\n")}\n`);
    // A schema node points nowhere.
    expect(json(await ok(["cas", "refs", roleSchemas[0]!, "--format", "json"]))).toEqual({
      hash: roleSchemas[0],
      refs: [],
    });

    const walk = await uwf(["cas", "walk", workflow]);
    expect(walk.code).toBe(0);
    const lines = walk.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`${workflow}  workflow`);
    expect(lines.slice(1).sort()).toEqual(
      [workflowType!, ...roleSchemas].map((h) => `  ${h}  schema`).sort(),
    );
    const doc = json<{ root: string; nodes: { hash: string; type: string; depth: number }[] }>(
      await ok(["cas", "walk", workflow, "--format", "json"]),
    );
    expect(doc.root).toBe(workflow);
    expect(doc.nodes[0]).toEqual({ hash: workflow, type: workflowType, depth: 0 });
    expect(doc.nodes.slice(1).map((n) => [n.type, n.depth])).toEqual([
      ["schema", 1],
      ["schema", 1],
      ["schema", 1],
    ]);
    const shallow = json<{ nodes: unknown[] }>(
      await ok(["cas", "walk", workflow, "--depth", "0", "--format", "json"]),
    );
    expect(shallow.nodes).toHaveLength(1);
  });

  it("refuses an argument that is not a hash (exit 2), saying what a hash looks like", async () => {
    for (const command of ["get", "has", "refs", "walk"]) {
      const result = await uwf(["cas", command, "not-a-hash"]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(
        [
          `error: <hash> must be ${HASH_RULE}, got "not-a-hash"`,
          "hint: Copy the hash from the command that printed it (`uwf workflow list`, `uwf step list`, `uwf cas put-text`, …).",
          "",
        ].join("\n"),
      );
    }
    const short = await uwf(["cas", "get", "3qw", "--format", "json"]);
    expect(short.code).toBe(2);
    expect(json<{ error: unknown }>(short.stderr).error).toEqual({
      code: "HASH_INVALID",
      exitCode: 2,
      message: `<hash> must be ${HASH_RULE}, got "3qw"`,
      hint: "Give at least 4 characters of the hash.",
    });
  });

  it("says an unknown hash is not in the CAS (exit 1)", async () => {
    for (const command of ["get", "refs", "walk"]) {
      const result = await uwf(["cas", command, ABSENT]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        [
          `error: node ${ABSENT} is not in the CAS`,
          "hint: check the hash; `uwf cas has <hash>` tells whether a node exists",
          "",
        ].join("\n"),
      );
    }
  });
});

describe("uwf cas: damaged files", () => {
  it("names an edited file on get (exit 1) and in verify (exit 1); the rest still verifies", async () => {
    const damaged = await ok(["cas", "put-text", "hello world"]);
    const intact = await ok(["cas", "put-text", "goodbye world"]);
    const file = fileOf(damaged);
    const bytes = readFileSync(file);
    bytes[bytes.indexOf("hello")] = "j".charCodeAt(0);
    writeFileSync(file, bytes);

    const got = await uwf(["cas", "get", damaged]);
    expect(got.code).toBe(1);
    expect(got.stdout).toBe("");
    expect(got.stderr).toMatch(
      new RegExp(
        `^error: ${file}: content does not match its name \\(it hashes to [0-9A-Z]{13}; truncated or edited\\)\\nhint: run \`uwf cas verify\` to check the whole store`,
      ),
    );
    expect((await uwf(["cas", "get", intact])).stdout).toBe("goodbye world\n");

    const verify = await uwf(["cas", "verify"]);
    expect(verify.code).toBe(1);
    const lines = verify.stdout.trimEnd().split("\n");
    const checked = storedHashes().length;
    expect(lines).toEqual([
      `${checked} checked, ${checked - 1} ok, 1 corrupt`,
      expect.stringMatching(
        new RegExp(`^  ${file}: content does not match its name \\(it hashes to [0-9A-Z]{13}\\)$`),
      ),
    ]);
    const doc = await uwf(["cas", "verify", "--format", "json"]);
    expect(doc.code).toBe(1);
    expect(json(doc.stdout)).toEqual({
      checked,
      ok: checked - 1,
      corrupt: [{ hash: damaged, file, problem: expect.stringMatching(/^content does not match/) }],
    });
  });

  it("names a truncated file likewise", async () => {
    const workflow = await addReview();
    const file = fileOf(workflow);
    writeFileSync(file, readFileSync(file).subarray(0, 20));

    const got = await uwf(["cas", "get", workflow, "--format", "json"]);
    expect(got.code).toBe(1);
    expect(json<{ error: unknown }>(got.stderr).error).toMatchObject({
      code: "CAS_CORRUPT",
      message: expect.stringContaining(`${file}: content does not match its name`),
      file,
    });
    const show = await uwf(["workflow", "show", "review"]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain(file);

    const verify = await uwf(["cas", "verify", "--format", "json"]);
    expect(verify.code).toBe(1);
    const doc = json<{ checked: number; ok: number; corrupt: { file: string }[] }>(verify.stdout);
    expect(doc.corrupt.map((c) => c.file)).toEqual([file]);
    expect(doc.ok).toBe(doc.checked - 1);
  });
});

describe("uwf cas gc", () => {
  /** A registered workflow with two versions, a started thread, and two unreachable nodes. */
  async function seed() {
    const v1 = await addReview();
    const file = join(home.home, "review.yaml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(/^description: .*$/m, "description: v2"),
    );
    await ok(["workflow", "add", "review.yaml"]);
    const started = json<{ thread: string; head: string }>(
      await ok(["thread", "start", "review", "-p", "Draft a haiku", "--format", "json"]),
    );
    const orphans = [
      await ok(["cas", "put-text", "an orphan"]),
      await ok(["cas", "put", "--type", "schema"], { input: JSON.stringify(SCHEMA) }),
    ].sort();
    return { v1, thread: started.thread, head: started.head, orphans };
  }

  it("dry run lists the unreachable nodes and deletes nothing; --yes deletes only them", async () => {
    const { v1, thread, head, orphans } = await seed();
    const before = storedHashes();

    const dry = await uwf(["cas", "gc", "--keep-recent", "0"]);
    expect(dry.code).toBe(0);
    const reachable = before.length - orphans.length;
    expect(dry.stdout).toBe(
      [
        `${reachable} reachable, 2 unreachable (${orphanBytes(orphans)} bytes).`,
        ...orphans.map((h) => `  ${h}`),
        "Dry run: run `uwf cas gc --yes` to delete them.",
        "",
      ].join("\n"),
    );
    expect(json(await ok(["cas", "gc", "--keep-recent", "0", "--format", "json"]))).toEqual({
      dryRun: true,
      roots: expect.any(Number),
      reachable,
      unreachable: orphans,
      deleted: 0,
      bytes: orphanBytes(orphans),
      recent: [],
      running: [],
    });
    expect(storedHashes()).toEqual(before);

    const bytes = orphanBytes(orphans);
    const real = await uwf(["cas", "gc", "--yes", "--keep-recent", "0"]);
    expect(real.code).toBe(0);
    expect(real.stdout).toBe(
      [
        `${reachable} reachable, deleted 2 unreachable nodes (${bytes} bytes).`,
        ...orphans.map((h) => `  ${h}`),
        "",
      ].join("\n"),
    );
    expect(storedHashes()).toEqual(before.filter((h) => !orphans.includes(h)));
    expect((await uwf(["cas", "has", v1])).code).toBe(0);

    // Everything a thread or the registry reaches still reads.
    expect((await uwf(["cas", "verify"])).code).toBe(0);
    const read = await uwf(["thread", "read", thread]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("Draft a haiku");
    expect((await uwf(["cas", "walk", head])).code).toBe(0);
    expect((await uwf(["workflow", "rollback", "review"])).code).toBe(0);
    expect((await uwf(["workflow", "show", "review", "--format", "json"])).stdout).toContain(v1);

    expect(
      json(await ok(["cas", "gc", "--yes", "--keep-recent", "0", "--format", "json"])),
    ).toEqual({
      dryRun: false,
      roots: expect.any(Number),
      reachable,
      unreachable: [],
      deleted: 0,
      bytes: 0,
      recent: [],
      running: [],
    });
  });

  it("refuses --yes while a thread's lease is held by a live process (GC_REFUSED, exit 1)", async () => {
    const { thread, orphans } = await seed();
    const lock = join(home.home, "locks", `${thread}.lock`);
    mkdirSync(join(home.home, "locks"), { recursive: true });
    const holder = processIdentity(process.pid);
    const info = {
      token: "e2e-test",
      holder,
      acquiredAt: "2026-01-01T00:00:00.000Z",
      command: "thread exec",
      child: null,
    };
    writeFileSync(lock, JSON.stringify(info));
    const before = storedHashes();

    const refused = await uwf(["cas", "gc", "--yes", "--keep-recent", "0"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toBe(
      [
        `error: gc refused: a thread is running: ${thread} (pid ${process.pid}, thread exec); an exec in flight stores nodes no thread points to yet`,
        `hint: nothing was deleted; wait with \`uwf thread join ${thread}\` (or stop it with \`uwf thread stop ${thread}\`), then run \`uwf cas gc --yes\` again`,
        "",
      ].join("\n"),
    );
    const refusedJson = await uwf(["cas", "gc", "--yes", "--keep-recent", "0", "--format", "json"]);
    expect(refusedJson.code).toBe(1);
    expect(json<{ error: unknown }>(refusedJson.stderr).error).toMatchObject({
      code: "GC_REFUSED",
      running: [{ thread, pid: process.pid, command: "thread exec", since: info.acquiredAt }],
    });
    expect(storedHashes()).toEqual(before);

    // The dry run still reports, and says why --yes would refuse.
    const dry = await uwf(["cas", "gc", "--keep-recent", "0"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(orphans.map((h) => `  ${h}`).join("\n"));
    expect(dry.stdout).toContain(
      `note: thread ${thread} is running (pid ${process.pid}); \`uwf cas gc --yes\` refuses until it stops.`,
    );

    // The same pid with another start time is a reused pid, not the holder: the lock is stale.
    writeFileSync(lock, JSON.stringify({ ...info, holder: { pid: process.pid, startTime: "1" } }));
    const collected = await uwf(["cas", "gc", "--yes", "--keep-recent", "0"]);
    expect(collected.stderr).toBe("");
    expect(collected.code).toBe(0);
    expect(storedHashes()).toEqual(before.filter((h) => !orphans.includes(h)));
  });

  it("keeps unreachable nodes written within --keep-recent (default 5m), a re-written one included", async () => {
    const { orphans } = await seed();
    const kept = await uwf(["cas", "gc", "--yes", "--format", "json"]);
    expect(kept.code).toBe(0);
    expect(json(kept.stdout)).toMatchObject({ deleted: 0, unreachable: [], recent: orphans });
    const text = await uwf(["cas", "gc", "--yes"]);
    expect(text.stdout).toContain(
      "kept 2 unreachable nodes written in the last --keep-recent period",
    );

    // Ten minutes later they are fair game, unless a writer stored one of them again.
    const old = new Date(Date.now() - 10 * 60_000);
    for (const hash of orphans) utimesSync(fileOf(hash), old, old);
    const rewritten = (await ok(["cas", "put-text", "an orphan"])).trim();
    const collected = json<{ unreachable: string[]; recent: string[] }>(
      await ok(["cas", "gc", "--yes", "--format", "json"]),
    );
    expect(collected.recent).toEqual([rewritten]);
    expect(collected.unreachable).toEqual(orphans.filter((h) => h !== rewritten));
    expect(existsSync(fileOf(rewritten))).toBe(true);

    const bad = await uwf(["cas", "gc", "--keep-recent", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--keep-recent must be a duration like 500ms, 30s, 5m, 1h, 7d, or 0, got "soon"',
    );
  });

  function orphanBytes(hashes: string[]): number {
    return hashes.reduce(
      (sum, h) => sum + (existsSync(fileOf(h)) ? readFileSync(fileOf(h)).length : 0),
      0,
    );
  }
});
