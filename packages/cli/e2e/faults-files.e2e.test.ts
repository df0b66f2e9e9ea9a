import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
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

/**
 * A workflow whose one role runs `./check.sh` where its entry edge's location points: rendered
 * from the `dir` input, or written literally.
 */
function scriptWorkflow(location: string): string {
  const file = join(t.home, "scripted.yaml");
  writeFileSync(
    file,
    [
      "name: scripted",
      "inputs:",
      "  type: object",
      "  properties: { dir: { type: string } }",
      "roles:",
      "  check:",
      "    run: [./check.sh]",
      "    exitStatus: { 0: passed, default: failed }",
      "    frontmatter:",
      "      type: object",
      "      properties: { $status: { enum: [passed, failed] } }",
      "      required: [$status]",
      "graph:",
      "  $START:",
      `    new: { role: check, prompt: "Check.", location: ${JSON.stringify(location)} }`,
      '    resume: { role: check, prompt: "Check again." }',
      "  check:",
      '    passed: { role: $END, prompt: "It passed." }',
      '    failed: { role: $END, prompt: "It failed." }',
      "",
    ].join("\n"),
  );
  return file;
}

/** `dir/check.sh`, which leaves a mark beside itself when it runs and prints `status`. */
function checkScript(dir: string, status = "passed"): string {
  mkdirSync(dir, { recursive: true });
  const mark = join(dir, "ran");
  writeFileSync(
    join(dir, "check.sh"),
    `#!/bin/sh\ntouch ${JSON.stringify(mark)}\necho '{"$status": ${JSON.stringify(status)}}'\n`,
  );
  chmodSync(join(dir, "check.sh"), 0o755);
  return mark;
}

describe("a run: step's location cannot be steered out of the thread's directory", () => {
  async function started(workflow: string, ...inputs: string[]): Promise<string> {
    const args = ["thread", "start", workflow, "-p", "check", "--cwd", join(t.home, "work")];
    for (const input of inputs) args.push("--input", input);
    const run = await uwf(...args);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout.trim();
  }

  beforeEach(() => {
    mkdirSync(join(t.home, "work"));
  });

  it("runs the command where an input points inside the thread's directory", async () => {
    const mark = checkScript(join(t.home, "work", "sub"));
    const thread = await started(scriptWorkflow("{{{inputs.dir}}}"), "dir=sub");
    const run = await uwf("thread", "exec", thread);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(mark)).toBe(true);
  });

  it("refuses an input that leads out with .., an absolute path or a symbolic link", async () => {
    const evil = join(t.home, "evil");
    const mark = checkScript(evil);
    symlinkSync(evil, join(t.home, "work", "link"));
    const workflow = scriptWorkflow("{{{inputs.dir}}}");
    for (const dir of ["../evil", evil, "link"]) {
      const thread = await started(workflow, `dir=${dir}`);
      const run = await uwf("thread", "exec", thread);
      expect(run.code).toBe(4);
      expect(run.stderr).toContain(
        `role "check" runs a command, and its location ${JSON.stringify(dir)}, rendered from the thread's inputs or a step's output, leads out of the thread's directory ${join(t.home, "work")} (to ${evil}): the command was not run`,
      );
      expect(existsSync(mark)).toBe(false);
      const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
      expect(show.status).toBe("suspended");
    }
  });

  it("refuses a fan-out child running commands where an item leads out, making no child", async () => {
    const inside = checkScript(join(t.home, "work", "sub"));
    const evil = checkScript(join(t.home, "evil"));
    const workflow = join(t.home, "fanned.yaml");
    writeFileSync(
      workflow,
      [
        "name: fanned",
        "inputs:",
        "  type: object",
        "  properties: { dirs: { type: array, items: { type: string } } }",
        "roles:",
        "  check:",
        "    run: [./check.sh]",
        "    exitStatus: { 0: passed, default: failed }",
        "    frontmatter:",
        "      type: object",
        "      properties: { $status: { enum: [passed, failed] } }",
        "      required: [$status]",
        "  collect:",
        "    join: true",
        "    frontmatter:",
        "      type: object",
        "      required: [$status, results]",
        "      properties: { $status: { enum: [done, partial] }, results: { type: array } }",
        "graph:",
        "  $START:",
        "    new:",
        "      role: collect",
        '      prompt: "Check {{{item}}}."',
        '      location: "{{{item}}}"',
        '      fanout: { over: "{{{inputs.dirs}}}", role: check }',
        '    resume: { role: collect, prompt: "Again.", fanout: { role: check } }',
        "  collect:",
        '    done: { role: $END, prompt: "Checked." }',
        '    partial: { role: $END, prompt: "Some failed." }',
        "",
      ].join("\n"),
    );
    const refused = await started(workflow, 'dirs=["sub", "../evil"]');
    const run = await uwf("thread", "exec", refused);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      `child 1 of the fan-out to role "collect" would run commands (workflow "fanned/check" has run: roles) in "../evil", rendered from the item, which leads out of the thread's directory ${join(t.home, "work")} (to ${join(t.home, "evil")})`,
    );
    expect(existsSync(evil)).toBe(false);

    const taken = await started(workflow, 'dirs=["sub"]');
    const ok = await uwf("thread", "exec", taken);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(inside)).toBe(true);
  });

  it("trusts a location the workflow writes literally, wherever it points", async () => {
    const mark = checkScript(join(t.home, "tools"));
    const thread = await started(scriptWorkflow("../tools"));
    const run = await uwf("thread", "exec", thread);
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(mark)).toBe(true);
  });
});

describe("invisible characters in $status and ids", () => {
  it("an agent's $status with a zero-width space is an invalid output, named", async () => {
    await uwf("workflow", "add", HELLO);
    const scenario = join(t.home, "zwsp.yaml");
    writeFileSync(
      scenario,
      'steps:\n  - role: greeter\n    output: { $status: "done\\u200B", greeting: "Hi" }\n',
    );
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const run = await uwf("thread", "exec", thread, "--agent", `uwf-mock --scenario ${scenario}`);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      '"$status" "done\\u{200B}" holds an invisible or control character (U+200B at position 5)',
    );
  });

  it("a script's $status with a bidi override fails the step, named", async () => {
    mkdirSync(join(t.home, "work"));
    checkScript(join(t.home, "work"), "pass\u202eed");
    const workflow = scriptWorkflow("");
    const thread = (
      await uwf("thread", "start", workflow, "-p", "check", "--cwd", join(t.home, "work"))
    ).stdout.trim();
    const run = await uwf("thread", "exec", thread);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      '"$status" "pass\\u{202E}ed" holds an invisible or control character (U+202E at position 5)',
    );
  });

  it("a thread id pasted with a zero-width space is refused, saying where it is", async () => {
    const { thread } = await helloThread();
    const run = await uwf("thread", "show", `${thread}\u200b`, "--format", "json");
    expect(run.code).toBe(2);
    expect(errorOf(run.stderr)).toMatchObject({
      code: "USAGE",
      message: expect.stringContaining(`got "${thread}\\u{200B}"`),
      hint: "It holds an invisible or control character (U+200B at position 27): type the id again, or copy it from `uwf thread list`.",
    });
  });
});

describe("the code cache stays in bounds", () => {
  const codeDir = () => join(t.home, "cache", "code", "uwf");

  it("removes a temp file a killed process left when it writes a cache", async () => {
    mkdirSync(codeDir(), { recursive: true });
    const left = join(codeDir(), "0000000000000000-thread-list-v0-x64.bin.99999.tmp");
    writeFileSync(left, "partial");
    const elevenMinutesAgo = (Date.now() - 11 * 60_000) / 1000;
    utimesSync(left, elevenMinutesAgo, elevenMinutesAgo);
    expect((await uwf("thread", "list")).code).toBe(0);
    const files = readdirSync(codeDir());
    expect(files.some((name) => name.includes("-thread-list-"))).toBe(true);
    expect(files.filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("writes no cache for an hour after a write found the disk full", async () => {
    mkdirSync(join(t.home, "cache", "code"), { recursive: true });
    writeFileSync(join(t.home, "cache", "code", "off-disk-full"), "");
    const run = await uwf("thread", "list");
    expect(run.code).toBe(0);
    expect(existsSync(codeDir())).toBe(false);
  });
});
