import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KILL_GRACE } from "./kill-grace.js";
import { killRunningGroups, type ProcessGroupOptions, startProcessGroup } from "./process-group.js";
import { runProcessGroup } from "./run-process-group.js";

let dir: string;
/** Processes a test left outside the groups it started, ended after it. */
const strays: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "uwf-process-"));
});
afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** `node -e <script>` as a group's leader; a short grace keeps the tests quick. */
function nodeGroup(script: string, extra: Partial<ProcessGroupOptions> = {}): ProcessGroupOptions {
  return {
    command: process.execPath,
    args: ["-e", script],
    cwd: dir,
    env: { PATH: process.env.PATH },
    graceMs: 200,
    ...extra,
  };
}

/** Starts a member of the leader's group that ignores SIGTERM and holds the leader's stdout. */
const STUBBORN_MEMBER = `
  const { spawn } = require("node:child_process");
  spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: ["ignore", "inherit", "ignore"] }).unref();
`;

/** Resolves with whether the stream reached its end (false: it was destroyed before). */
function endOf(stream: NodeJS.ReadableStream & { once: (e: string, f: () => void) => unknown }) {
  return new Promise<boolean>((resolve) => {
    stream.once("end", () => resolve(true));
    stream.once("close", () => resolve(false));
  });
}

describe("a process group", () => {
  it("that ignores SIGTERM is killed whole after the grace", async () => {
    const group = startProcessGroup(
      nodeGroup(`${STUBBORN_MEMBER}
        process.on("SIGTERM", () => {});
        console.log("ready");
        setInterval(() => {}, 1000);`),
    );
    const ended = endOf(group.stdout);
    group.stdout.once("data", () => group.terminate());
    expect(await group.closed).toEqual({ exitCode: null, signal: "SIGKILL", error: null });
    // The pipe reached its end: every process that held it, the member too, is gone.
    expect(await ended).toBe(true);
  });

  it("ends with its leader: a member it left behind is killed, not waited for", async () => {
    const group = startProcessGroup(nodeGroup(`${STUBBORN_MEMBER} console.log("bye");`));
    const ended = endOf(group.stdout);
    expect(await group.closed).toMatchObject({ exitCode: 0, signal: null });
    expect(await ended).toBe(true);
  });

  it("does not wait past the grace for a process that left the group and holds its pipes", async () => {
    const group = startProcessGroup(
      nodeGroup(`
        const { spawn } = require("node:child_process");
        const escaped = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: ["ignore", "inherit", "inherit"] });
        escaped.unref();
        console.log(escaped.pid);`),
    );
    group.stdout.once("data", (chunk: Buffer) => strays.push(Number(String(chunk).trim())));
    const ended = endOf(group.stdout);
    expect(await group.closed).toMatchObject({ exitCode: 0, signal: null });
    // Still open when the grace was over: the caller stopped reading.
    expect(await ended).toBe(false);
  });

  it("reports a command that is not there as Node's spawn would, before spawning anything", async () => {
    const group = startProcessGroup(nodeGroup("", { command: "uwf-no-such-command" }));
    expect(group.pid).toBeUndefined();
    const exit = await group.exited;
    expect(exit.error).toMatchObject({
      code: "ENOENT",
      message: "spawn uwf-no-such-command ENOENT",
    });
    await group.closed;
  });

  it("reports a file that is not executable as EACCES", async () => {
    writeFileSync(join(dir, "script"), "#!/bin/sh\n");
    chmodSync(join(dir, "script"), 0o644);
    const exit = await startProcessGroup(nodeGroup("", { command: "./script" })).exited;
    expect(exit.error?.code).toBe("EACCES");
  });

  it("takes a process started earlier instead of spawning one", async () => {
    const { spawn } = await import("node:child_process");
    const early = spawn(process.execPath, ["-e", "console.log('early')"], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const programs: string[] = [];
    const outcome = await runProcessGroup({
      ...nodeGroup("console.log('spawned')"),
      adopt: (program) => {
        programs.push(program);
        return early;
      },
      stdout: { tailChars: 100 },
    });
    expect(programs).toEqual([process.execPath]);
    expect(outcome).toMatchObject({ pid: early.pid, exitCode: 0 });
    expect(outcome.stdout.tail).toBe("early\n");
  });

  it("lets a peer exit by itself once its stdin is closed", async () => {
    const group = startProcessGroup(
      nodeGroup("process.stdin.resume().on('end', () => process.exit(7))", { stdin: "open" }),
    );
    await group.stop(KILL_GRACE.nested);
    expect(group.exit).toEqual({ exitCode: 7, signal: null, error: null });
  });

  it("ends a peer that ignores the end of its stdin and SIGTERM", async () => {
    const group = startProcessGroup(
      nodeGroup(
        `process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("ready")`,
        {
          stdin: "open",
        },
      ),
    );
    await new Promise((resolve) => group.stdout.once("data", resolve));
    await group.stop(0);
    expect(group.exit?.signal).toBe("SIGKILL");
  });

  it("is killed at once by killRunningGroups, for an exit that cannot wait", async () => {
    const group = startProcessGroup(
      nodeGroup(
        `process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("ready")`,
        {
          graceMs: 60_000,
        },
      ),
    );
    group.stdout.once("data", () => killRunningGroups());
    expect((await group.exited).signal).toBe("SIGKILL");
  });
});

describe("runProcessGroup", () => {
  it("writes the given text to stdin and closes it; without text stdin is at its end at once", async () => {
    const count =
      "let n = 0; process.stdin.on('data', (c) => { n += c.length; }).on('end', () => console.log(n))";
    const text = "ß".repeat(100_000);
    const fed = await runProcessGroup({
      ...nodeGroup(count),
      stdin: { text },
      stdout: { tailChars: 20 },
    });
    expect(fed.stdout.tail).toBe(`${Buffer.byteLength(text)}\n`);
    const closed = await runProcessGroup({ ...nodeGroup(count), stdout: { tailChars: 20 } });
    expect(closed.stdout.tail).toBe("0\n");
  });

  it("ends the group on timeout and says so", async () => {
    const outcome = await runProcessGroup({
      ...nodeGroup("setInterval(() => {}, 1000)"),
      timeoutMs: 50,
    });
    expect(outcome).toMatchObject({
      timedOut: true,
      aborted: false,
      exitCode: null,
      signal: "SIGTERM",
    });
  });

  it("ends the group on abort and says so", async () => {
    const controller = new AbortController();
    const outcome = await runProcessGroup({
      ...nodeGroup("console.log('started'); setInterval(() => {}, 1000)"),
      signal: controller.signal,
      stdout: { onLine: () => controller.abort() },
    });
    expect(outcome).toMatchObject({ timedOut: false, aborted: true, signal: "SIGTERM" });
  });

  it("passes on lines and keeps bounded tails of both streams", async () => {
    const lines: string[] = [];
    const outcome = await runProcessGroup({
      ...nodeGroup(
        "console.log('one\\ntwo'); for (let i = 0; i < 1000; i++) console.error('line ' + i); process.exitCode = 3",
      ),
      stdout: { onLine: (line) => lines.push(line) },
      stderr: { tailChars: 18 },
    });
    expect(lines).toEqual(["one", "two"]);
    expect(outcome.exitCode).toBe(3);
    expect(outcome.stderr).toMatchObject({ tail: "line 998\nline 999\n", truncated: true });
  });

  it("names a command it cannot find and how to look for it", async () => {
    const missing = (command: string) =>
      runProcessGroup({ ...nodeGroup(""), command, notFoundHint: "Install it." }).catch(
        (error: unknown) => error,
      );
    expect(await missing("uwf-no-such-command")).toMatchObject({
      code: "AGENT_FAILED",
      message:
        '"uwf-no-such-command" not found in PATH. Install it or check your PATH config. Run: which uwf-no-such-command',
      hint: "Install it.",
    });
    expect(await missing("./my-agent")).toMatchObject({
      message: `"./my-agent" not found or not executable in ${dir} (a relative command is read from the directory it runs in; give an absolute path to run it from anywhere)`,
    });
  });

  it("kills the group and rejects when onSpawn throws", async () => {
    let pid = 0;
    const run = runProcessGroup({
      ...nodeGroup("setInterval(() => {}, 1000)"),
      onSpawn: (spawned) => {
        pid = spawned;
        throw new Error("no lock");
      },
    });
    await expect(run).rejects.toThrow("no lock");
    expect(pid).toBeGreaterThan(0);
  });
});

describe("KILL_GRACE", () => {
  it("nests: a step can end what it started, SIGKILL included, before its own SIGKILL", () => {
    expect(KILL_GRACE.nested).toBeLessThan(KILL_GRACE.step);
    expect(KILL_GRACE.holder).toBeGreaterThan(2 * KILL_GRACE.step);
  });
});
