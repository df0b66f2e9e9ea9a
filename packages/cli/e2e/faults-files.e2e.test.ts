import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const HELLO = join(REPO_ROOT, "examples/hello.yaml");
const SCENARIO = join(REPO_ROOT, "packages/cli/e2e/fixtures/hello-twice.yaml");
const MOCK = `uwf-mock --scenario ${SCENARIO}`;

let t: TempHome;
beforeEach(() => {
  t = tempHome();
});
afterEach(() => t.cleanup());

const uwf = (...args: string[]) => runUwf(args, { home: t.home });
const uwfWith = (input: string, ...args: string[]) => runUwf(args, { home: t.home, input });

/** A completed hello thread of this home, and its bundle's text. */
async function helloThread(): Promise<{ thread: string; bundle: string }> {
  await uwf("workflow", "add", HELLO);
  const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
  expect((await uwf("thread", "exec", thread, "--agent", MOCK)).code).toBe(0);
  const file = join(t.home, `${thread}.uwf-bundle`);
  expect((await uwf("thread", "export", thread, "-o", file)).code).toBe(0);
  return { thread, bundle: readFileSync(file, "utf8") };
}

function errorOf(stderr: string): { code: string; message: string; hint: string } {
  return JSON.parse(stderr).error;
}

describe("thread import reads a bounded bundle", () => {
  it("stops /dev/zero at the line limit, exit 1, and the store keeps what it had", async () => {
    const { thread } = await helloThread();
    const before = (await uwf("thread", "read", thread)).stdout;

    const zero = await uwf(
      "thread",
      "import",
      "/dev/zero",
      "--max-line-mib",
      "2",
      "--format",
      "json",
    );
    expect(zero.code).toBe(1);
    const error = errorOf(zero.stderr);
    expect(error.code).toBe("BUNDLE_TOO_LARGE");
    expect(error.message).toBe(
      "line 1 of the bundle is longer than 2 MiB: reading stopped there, and nothing was imported",
    );
    expect(error.hint).toContain("--max-line-mib");

    expect((await uwf("thread", "read", thread)).stdout).toBe(before);
    expect((await uwf("thread", "verify", thread)).code).toBe(0);
  });

  it("stops an endless line on stdin by the default limit of 64 MiB", async () => {
    const { bundle } = await helloThread();
    const header = bundle.slice(0, bundle.indexOf("\n") + 1);
    const run = await uwfWith(
      `${header}${"x".repeat(65 * 1024 * 1024)}`,
      "thread",
      "import",
      "-",
      "--format",
      "json",
    );
    expect(run.code).toBe(1);
    expect(errorOf(run.stderr).message).toBe(
      "line 2 of the bundle is longer than 64 MiB: reading stopped there, and nothing was imported",
    );
  });

  it("stops a bundle larger than --max-mib, and takes it under a higher limit", async () => {
    const { thread, bundle } = await helloThread();
    // The same bundle with one node repeated until it passes 1 MiB: a valid bundle, only long.
    const [header, node] = bundle.split("\n");
    const long = join(t.home, "long.uwf-bundle");
    const copies = Math.ceil((1024 * 1024) / (node!.length + 1)) + 1;
    writeFileSync(
      long,
      `${header}\n${`${node}\n`.repeat(copies)}${bundle.slice(header!.length + 1)}`,
    );

    const other = tempHome();
    try {
      const into = (...args: string[]) => runUwf(args, { home: other.home });
      const refused = await into("thread", "import", long, "--max-mib", "1", "--format", "json");
      expect(refused.code).toBe(1);
      expect(errorOf(refused.stderr)).toMatchObject({
        code: "BUNDLE_TOO_LARGE",
        message: "the bundle is larger than 1 MiB: reading stopped there, and nothing was imported",
      });
      expect((await into("thread", "show", thread)).code).toBe(1);

      const taken = await into("thread", "import", long, "--max-mib", "2");
      expect(taken.code, taken.stderr).toBe(0);
      expect((await into("thread", "verify", thread)).code).toBe(0);
    } finally {
      other.cleanup();
    }
  });

  it("says a file it cannot read is an I/O error naming it", async () => {
    const run = await uwf("thread", "import", t.home, "--format", "json");
    expect(run.code).toBe(1);
    expect(errorOf(run.stderr)).toMatchObject({
      code: "IO",
      message: `cannot read ${t.home}: EISDIR: illegal operation on a directory, read`,
    });
  });
});

describe("thread export -o never replaces what is not a regular file", () => {
  it("writes into /dev/null with --force, which stays a character device", async () => {
    const { thread } = await helloThread();
    const run = await uwf("thread", "export", thread, "-o", "/dev/null", "--force");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^wrote \/dev\/null: 1 thread, \d+ nodes, \d+ bytes$/m);
    expect(lstatSync("/dev/null").isCharacterDevice()).toBe(true);
  });

  it("refuses a directory with exit 2, and writes nothing into it", async () => {
    const { thread } = await helloThread();
    const dir = join(t.home, "out");
    mkdirSync(dir);
    const run = await uwf("thread", "export", thread, "-o", dir, "--force", "--format", "json");
    expect(run.code).toBe(2);
    expect(errorOf(run.stderr)).toMatchObject({
      code: "USAGE",
      message: `${dir} is a directory, not a regular file; nothing was written`,
    });
  });
});
