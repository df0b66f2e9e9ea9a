import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { REPO_ROOT } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WarmNodes } from "../__fixtures__/warm-nodes.js";
import { type AdapterInvocation, runAdapter } from "./spawn-adapter.js";
import { WarmChild } from "./warm-child.js";
import { keepWarmNode } from "./warm-node.js";

let dir: string;
let warmNodes: WarmNodes;
let started: WarmNodes["started"];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-warm-"));
  warmNodes = new WarmNodes();
  started = warmNodes.started;
});
afterEach(() => {
  keepWarmNode(false);
  warmNodes.end();
  rmSync(dir, { recursive: true, force: true });
});

/** Start a warm process as the bin does, with `env` as uwf's environment. */
function startWarmNode(env: NodeJS.ProcessEnv = process.env): { pid: number } {
  return { pid: warmNodes.start(env).process.pid };
}

// Prints what a spawned adapter would see of itself.
const REPORT = `
console.log(JSON.stringify({
  argv: process.argv.slice(1),
  cwd: process.cwd(),
  main: require.main === module,
  answer: process.env.ANSWER ?? null,
  stray: process.env.UWF_WARM_STRAY ?? null,
  pid: process.pid,
}));
process.exitCode = Number(process.env.EXIT ?? 0);
`;

function invocation(extra: Partial<AdapterInvocation>): AdapterInvocation {
  return {
    command: process.execPath,
    args: [],
    cwd: dir,
    env: { ...process.env, ANSWER: "42" },
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    onStderr: () => {},
    onSpawn: () => {},
    ...extra,
  };
}

describe("a warm Node process", () => {
  it("runs a Node adapter as a spawn would: argv, cwd, environment, main module, exit code", async () => {
    const script = join(dir, "adapter.cjs");
    writeFileSync(script, REPORT);
    const cwd = join(dir, "work");
    mkdirSync(cwd);
    // Set in uwf's environment when the launcher started, absent from the adapter's.
    const warm = startWarmNode({ ...process.env, UWF_WARM_STRAY: "from uwf" });
    const pids: number[] = [];
    const outcome = await runAdapter(
      invocation({
        args: [script, "--role", "a b"],
        cwd,
        env: { ...process.env, ANSWER: "42", EXIT: "3" },
        onSpawn: (pid) => pids.push(pid),
      }),
    );
    expect(outcome.exitCode).toBe(3);
    expect(JSON.parse(outcome.lastLine)).toEqual({
      argv: [script, "--role", "a b"],
      cwd,
      main: true,
      answer: "42",
      stray: null,
      pid: warm.pid,
    });
    expect(pids).toEqual([warm.pid]);
    expect(warmNodes.inSlot).toBeUndefined();
  });

  it("runs a script whose #! line is `/usr/bin/env node`, found on the adapter's PATH", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    const script = join(bin, "my-adapter");
    writeFileSync(script, `#!/usr/bin/env node\n${REPORT}`);
    chmodSync(script, 0o755);
    const warm = startWarmNode();
    const outcome = await runAdapter(
      invocation({
        command: "my-adapter",
        args: ["x"],
        env: { ...process.env, PATH: bin, ANSWER: "7" },
      }),
    );
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(outcome.lastLine)).toMatchObject({
      argv: [script, "x"],
      answer: "7",
      pid: warm.pid,
    });
  });

  it("is started again as it is taken while the run has more steps to go, and only then", async () => {
    const script = join(dir, "adapter.cjs");
    writeFileSync(script, REPORT);
    const first = startWarmNode();
    keepWarmNode(true);
    const one = await runAdapter(invocation({ args: [script] }));
    const second = warmNodes.inSlot?.process;
    expect(second).toBeDefined();
    expect(second?.pid).not.toBe(first.pid);
    keepWarmNode(false);
    const two = await runAdapter(invocation({ args: [script] }));
    expect([JSON.parse(one.lastLine).pid, JSON.parse(two.lastLine).pid]).toEqual([
      first.pid,
      second?.pid,
    ]);
    // The last step of the run left none behind.
    expect(warmNodes.inSlot).toBeUndefined();
    expect(started).toHaveLength(2);
  });

  it("is left alone for a program that is not a Node script, which is spawned as usual", async () => {
    const script = join(dir, "adapter.sh");
    writeFileSync(script, `#!/bin/sh\necho '{"shell":true}'\n`);
    chmodSync(script, 0o755);
    const warm = startWarmNode();
    const pids: number[] = [];
    const outcome = await runAdapter(
      invocation({ command: script, onSpawn: (pid) => pids.push(pid) }),
    );
    expect(outcome.lastLine).toBe('{"shell":true}');
    expect(pids).not.toContain(warm.pid);
    // Still there for the next Node adapter.
    expect(warmNodes.inSlot?.process.pid).toBe(warm.pid);
  });

  it("is not used when Node would have started differently: another NODE_OPTIONS", async () => {
    const script = join(dir, "adapter.cjs");
    writeFileSync(script, REPORT);
    const warm = startWarmNode();
    const outcome = await runAdapter(
      invocation({
        args: [script],
        env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=200" },
      }),
    );
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(outcome.lastLine).pid).not.toBe(warm.pid);
  });

  it("is not used for an adapter given text on stdin (it was started with none)", async () => {
    const script = join(dir, "adapter.cjs");
    writeFileSync(script, REPORT);
    const warm = startWarmNode();
    const outcome = await runAdapter(invocation({ args: [script], stdin: "prompt" }));
    expect(JSON.parse(outcome.lastLine).pid).not.toBe(warm.pid);
  });

  it("ends by itself, printing nothing, when uwf closes it unused", async () => {
    startWarmNode();
    const warm = warmNodes.inSlot;
    if (warm === undefined) throw new Error("no warm process in the slot");
    const child = new WarmChild(warm, "0".repeat(32));
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.stdio[3].end();
    const [code] = await once(child, "close");
    expect({ code, output }).toEqual({ code: 0, output: "" });
  });

  it("is not taken once it has ended", async () => {
    const script = join(dir, "adapter.cjs");
    writeFileSync(script, REPORT);
    const warm = startWarmNode();
    process.kill(warm.pid, "SIGKILL");
    // The bin's handler marks it ended; wait for that without a timer.
    await new Promise<void>((resolve) => {
      const entry = warmNodes.inSlot;
      if (entry === undefined) throw new Error("no warm process in the slot");
      const onexit = entry.process.onexit;
      entry.process.onexit = (code, signal) => {
        onexit(code, signal);
        resolve();
      };
    });
    const outcome = await runAdapter(invocation({ args: [script] }));
    expect(outcome.exitCode).toBe(0);
    expect(JSON.parse(outcome.lastLine).pid).not.toBe(warm.pid);
  });

  it("reports its exit before its teardown: the final code, both streams whole, no report line", async () => {
    // The adapter holds its teardown until something opens the FIFO for writing, which nothing
    // here does: runAdapter can only end by the report, and then kills the group.
    const gate = join(dir, "gate");
    expect(spawnSync("mkfifo", [gate]).status).toBe(0);
    const script = join(dir, "adapter.cjs");
    writeFileSync(
      script,
      `const { closeSync, openSync } = require("node:fs");
const emit = process.emit;
process.emit = function (event, ...args) {
  const result = Reflect.apply(emit, this, [event, ...args]);
  if (event === "exit") closeSync(openSync(${JSON.stringify(gate)}, "r"));
  return result;
};
process.on("exit", () => {
  process.exitCode = 4;
  process.stderr.write("last words\\n");
});
process.stderr.write("warning\\n");
process.stdout.write('{"result":true}');
process.exitCode = 3;
`,
    );
    startWarmNode();
    const outcome = await runAdapter(invocation({ args: [script], keepStdout: 1000 }));
    expect(outcome).toMatchObject({
      exitCode: 4,
      signal: null,
      lastLine: '{"result":true}',
      stdout: '{"result":true}',
      stderrTail: "warning\nlast words\n",
    });
  });

  it("runs a script reached through a symlink from its real folder, as npm's .bin links are", async () => {
    // Beside warm-node.cjs, so that the folders Node cached resolving it lead to the link too
    // (the case a stale stat of a pipe used to cut short: the script loaded from the link's folder).
    const links = mkdtempSync(join(REPO_ROOT, "node_modules", ".uwf-warm-links-"));
    try {
      const pkg = join(dir, "pkg");
      mkdirSync(join(pkg, "bin"), { recursive: true });
      mkdirSync(join(pkg, "lib"));
      writeFileSync(join(pkg, "lib", "answer.cjs"), "module.exports = 42;");
      writeFileSync(
        join(pkg, "bin", "adapter.cjs"),
        '#!/usr/bin/env node\nconsole.log(JSON.stringify({ answer: require("../lib/answer.cjs") }));',
      );
      chmodSync(join(pkg, "bin", "adapter.cjs"), 0o755);
      symlinkSync(join(pkg, "bin", "adapter.cjs"), join(links, "adapter"));
      const warm = startWarmNode();
      const pids: number[] = [];
      const outcome = await runAdapter(
        invocation({ args: [join(links, "adapter")], onSpawn: (pid) => pids.push(pid) }),
      );
      expect({ pids, exitCode: outcome.exitCode, lastLine: outcome.lastLine }).toEqual({
        pids: [warm.pid],
        exitCode: 0,
        lastLine: '{"answer":42}',
      });
    } finally {
      rmSync(links, { recursive: true, force: true });
    }
  });

  it.each([
    ["ending with code 3", 3, true, ""],
    ["ending with code 130", 130, false, ""],
    // `thread stop` signals uwf first: uwf must see that signal before the adapter's end.
    [
      "ending with code 1 on a SIGTERM it handles",
      1,
      false,
      'const alive = setInterval(() => {}, 1000); process.on("SIGTERM", () => clearInterval(alive)); process.kill(process.pid, "SIGTERM");',
    ],
  ])(
    "warm-node.cjs, an adapter %s: code %i, reported on both streams: %s",
    async (_, code, reported, more) => {
      const script = join(dir, "adapter.cjs");
      writeFileSync(script, `process.stdout.write("out"); process.exitCode = ${code}; ${more}`);
      const key = "ab".repeat(16);
      const child = spawn(
        process.execPath,
        [join(REPO_ROOT, "packages/cli/bin/warm-node.cjs"), " "],
        {
          stdio: ["ignore", "pipe", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk) => (stdout += chunk));
      child.stderr?.on("data", (chunk) => (stderr += chunk));
      const channel = child.stdio[3] as Writable;
      channel.end(
        JSON.stringify({ file: script, args: [], cwd: dir, env: process.env, report: key }),
      );
      const [exitCode] = await once(child, "close");
      expect(exitCode).toBe(code);
      const line = `\0uwf-exit ${key} ${code}\n`;
      expect({ stdout, stderr }).toEqual(
        reported ? { stdout: `out${line}`, stderr: line } : { stdout: "out", stderr: "" },
      );
    },
  );

  it("takes a report line with another key for output, and waits for the exit", async () => {
    const script = join(dir, "adapter.cjs");
    const forged = `\0uwf-exit ${"0".repeat(32)} 0\n`;
    writeFileSync(
      script,
      `process.stdout.write(${JSON.stringify(`${forged}{"ok":true}\n`)});
process.stderr.write(${JSON.stringify(forged)});
process.exitCode = 2;`,
    );
    startWarmNode();
    const lines: string[] = [];
    const outcome = await runAdapter(
      invocation({ args: [script], keepStdout: 1000, onStderr: (text) => lines.push(text) }),
    );
    expect(outcome).toMatchObject({ exitCode: 2, lastLine: '{"ok":true}' });
    expect(outcome.stdout).toBe(`${forged}{"ok":true}\n`);
    expect(lines.join("")).toContain(`uwf-exit ${"0".repeat(32)} 0`);
  });

  it.each([
    ["an uncaught exception", 'setImmediate(() => { throw new Error("boom in the adapter"); });'],
    ["an unhandled rejection", 'Promise.reject(new Error("boom in the adapter"));'],
  ])("reports no exit for %s, whose message Node prints after the exit event", async (_, code) => {
    const script = join(dir, "adapter.cjs");
    writeFileSync(script, code);
    startWarmNode();
    const outcome = await runAdapter(invocation({ args: [script] }));
    expect(outcome.exitCode).toBe(1);
    expect(outcome.stderrTail).toContain("boom in the adapter");
  });

  it("is killed with its group when the step times out", async () => {
    const script = join(dir, "hang.cjs");
    writeFileSync(script, "setInterval(() => {}, 1000);");
    const warm = startWarmNode();
    const pids: number[] = [];
    const outcome = await runAdapter(
      invocation({ args: [script], timeoutMs: 200, onSpawn: (pid) => pids.push(pid) }),
    );
    expect(outcome).toMatchObject({ timedOut: true, signal: "SIGTERM" });
    expect(pids).toEqual([warm.pid]);
  });
});
