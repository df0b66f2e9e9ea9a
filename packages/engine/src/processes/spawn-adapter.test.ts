import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AdapterInvocation, runAdapter } from "./spawn-adapter.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-spawn-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Run `node -e <script>` as the adapter. */
function runNode(script: string, extra: Partial<AdapterInvocation> = {}) {
  return runAdapter({
    command: process.execPath,
    args: ["-e", script],
    cwd: dir,
    env: { PATH: process.env.PATH },
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    onStderr: () => {},
    onSpawn: () => {},
    ...extra,
  });
}

const COUNT_STDIN = `
let bytes = 0;
process.stdin.on("data", (chunk) => { bytes += chunk.length; });
process.stdin.on("end", () => console.log(JSON.stringify({ bytes })));
`;

describe("runAdapter's stdin", () => {
  it("writes the given text to the adapter's stdin and closes it", async () => {
    const text = "ß".repeat(600_000);
    const outcome = await runNode(COUNT_STDIN, { stdin: text });
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(outcome.lastLine)).toEqual({ bytes: Buffer.byteLength(text) });
  });

  it("gives /dev/null without text: an adapter reading stdin sees its end at once", async () => {
    const outcome = await runNode(COUNT_STDIN);
    expect(JSON.parse(outcome.lastLine)).toEqual({ bytes: 0 });
  });

  it("reports an adapter that exits without reading a large stdin by its exit code", async () => {
    const outcome = await runNode("process.exit(3)", { stdin: "x".repeat(4 * 1024 * 1024) });
    expect(outcome).toMatchObject({ exitCode: 3, timedOut: false, aborted: false });
  });
});

describe("runAdapter's early result line", () => {
  it("reports the first JSON line once, while the adapter still runs", async () => {
    const seen: string[] = [];
    let pid = 0;
    // The adapter prints its result lines, then runs until it is sent SIGTERM: the line must
    // reach the caller while the process is still there.
    const script = `
      process.on("SIGTERM", () => process.exit(0));
      setInterval(() => {}, 60_000);
      console.log("warming up");
      console.log(JSON.stringify({ stepHash: "first" }));
      console.log(JSON.stringify({ stepHash: "second" }));
    `;
    const outcome = await runNode(script, {
      onSpawn: (child) => {
        pid = child;
      },
      onResultLine(line) {
        seen.push(line);
        process.kill(pid, "SIGTERM");
      },
    });
    expect(seen).toEqual(['{"stepHash":"first"}']);
    // What counts is still the last line, once the adapter has ended.
    expect(outcome).toMatchObject({ exitCode: 0, lastLine: '{"stepHash":"second"}' });
  });
});

describe("a command runAdapter cannot find", () => {
  it("names PATH for a bare name, and for a relative path the directory it was read from", async () => {
    const missing = (command: string) =>
      runNode("", { command }).then(
        () => "ran",
        (error: Error) => error.message,
      );
    expect(await missing("uwf-no-such-agent")).toBe(
      '"uwf-no-such-agent" not found in PATH. Install it or check your PATH config. Run: which uwf-no-such-agent',
    );
    expect(await missing("./my-agent")).toBe(
      `"./my-agent" not found or not executable in ${dir} (a relative command is read from the directory it runs in; give an absolute path to run it from anywhere)`,
    );
    expect(await missing("/nowhere/my-agent")).toBe(
      '"/nowhere/my-agent" not found or not executable',
    );
  });
});

describe("runAdapter's stderr", () => {
  it("masks what its secret-named variables hold and URL passwords, shown and kept alike", async () => {
    const seen: string[] = [];
    const token = "ghp_0123456789abcdefghij";
    // The secret is written in two pieces: lines are masked whole, so it is masked however
    // the reads cut it.
    const script = `
      process.stderr.write("token: " + process.env.GITHUB_TOKEN.slice(0, 10));
      process.stderr.write(process.env.GITHUB_TOKEN.slice(10) + " mode: " + process.env.MODE + "\\n");
      process.stderr.write("short: " + process.env.SHORT_TOKEN + "\\n");
      process.stderr.write("db: " + process.env.DATABASE_URL + "\\n");
    `;
    const outcome = await runNode(script, {
      env: {
        PATH: process.env.PATH,
        GITHUB_TOKEN: token,
        MODE: "fast-and-loose",
        SHORT_TOKEN: "1",
        DATABASE_URL: "postgres://uwf:hunter2@db:5432/uwf",
      },
      onStderr: (chunk) => seen.push(chunk),
    });
    expect(outcome.exitCode).toBe(0);
    const shown =
      "token: **** mode: fast-and-loose\nshort: 1\ndb: postgres://uwf:****@db:5432/uwf\n";
    expect(seen.join("")).toBe(shown);
    expect(outcome.stderrTail).toBe(shown);
  });
});
