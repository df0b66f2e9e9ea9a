import { isProcessGone, waitUntilGone } from "@united-workforce/test-utils";
import { describe, expect, it } from "vitest";
import { findOnPath, spawnAgentCli } from "./spawn.js";

const NODE = process.execPath;

/** Run a small Node program as the "agent CLI". */
function node(
  source: string,
  options: Partial<Parameters<typeof spawnAgentCli>[0]> = {},
): {
  stdout: string[];
  stderr: string[];
  done: ReturnType<typeof spawnAgentCli>;
} {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const done = spawnAgentCli({
    command: NODE,
    args: ["-e", source],
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    onStdoutLine: (line) => stdout.push(line),
    onStderrLine: (line) => stderr.push(line),
    ...options,
  });
  return { stdout, stderr, done };
}

describe("spawnAgentCli", () => {
  it("delivers stdout as whole lines, a multi-byte character split across writes included", async () => {
    const euro = Buffer.from("€");
    const run = node(`
      const w = (b) => new Promise((r) => process.stdout.write(b, r));
      const pause = () => new Promise((r) => setTimeout(r, 20));
      (async () => {
        await w('{"a":1}\\r\\nfirst ');
        await pause();
        await w(Buffer.from([${euro[0]}]));
        await pause();
        await w(Buffer.from([${euro[1]}, ${euro[2]}]));
        await w(' half\\n\\nlast without newline');
      })();
    `);
    const outcome = await run.done;
    expect(outcome.exitCode).toBe(0);
    expect(run.stdout).toEqual(['{"a":1}', "first € half", "", "last without newline"]);
  });

  it("feeds the given text on stdin and closes it", async () => {
    const prompt = `${"x".repeat(300_000)}\nthe end`;
    const run = node(
      "let s='';process.stdin.setEncoding('utf8').on('data',(c)=>s+=c).on('end',()=>console.log(s.length, JSON.stringify(s.slice(-7))))",
      { stdin: prompt },
    );
    await run.done;
    expect(run.stdout).toEqual([`${prompt.length} "the end"`]);
  });

  it("closes stdin when no text is given, so a CLI reading it sees the end at once", async () => {
    const run = node(
      "process.stdin.on('data',()=>{}).on('end',()=>console.log('eof'));process.stdin.resume()",
    );
    await run.done;
    expect(run.stdout).toEqual(["eof"]);
  });

  it("gives the child exactly the environment it is handed", async () => {
    const run = node("console.log(JSON.stringify(process.env))", {
      env: { PATH: process.env.PATH, ONLY_THIS: "yes", DROPPED: undefined },
    });
    await run.done;
    const env = JSON.parse(run.stdout[0]!) as Record<string, string>;
    expect(env.ONLY_THIS).toBe("yes");
    expect(env).not.toHaveProperty("DROPPED");
    expect(env).not.toHaveProperty("HOME");
  });

  it("reports the exit code and keeps a bounded stderr tail", async () => {
    const run = node(
      "for (let i = 0; i < 2000; i++) console.error('line ' + i); console.error('boom'); process.exitCode = 3",
    );
    const outcome = await run.done;
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, timedOut: false, aborted: false });
    expect(outcome.stderrTail.length).toBeLessThanOrEqual(4000);
    expect(outcome.stderrTail.trimEnd().endsWith("boom")).toBe(true);
    expect(run.stderr).toHaveLength(2001);
  });

  it("on timeout kills the whole process group, a grandchild that ignores SIGTERM included", async () => {
    // The CLI starts a helper in its own group that ignores SIGTERM, prints both pids and hangs.
    const run = node(
      `
      const { spawn } = require("node:child_process");
      const helper = spawn(process.execPath, ["-e", "process.on('SIGTERM',()=>{});setInterval(()=>{},1000)"], { stdio: "ignore" });
      process.on("SIGTERM", () => {});
      console.log(process.pid + " " + helper.pid);
      setInterval(() => {}, 1000);
    `,
      { timeoutMs: 500, killGraceMs: 200 },
    );
    const outcome = await run.done;
    expect(outcome.timedOut).toBe(true);
    expect(outcome.exitCode).toBeNull();
    const [cliPid, helperPid] = run.stdout[0]!.split(" ").map(Number);
    expect(cliPid).toBe(outcome.pid);
    expect(await waitUntilGone(cliPid!, 10_000)).toBe(true);
    expect(await waitUntilGone(helperPid!, 10_000)).toBe(true);
  });

  it("on abort ends the group and says it was aborted", async () => {
    const controller = new AbortController();
    let pid = 0;
    const run = node("console.log('started'); setInterval(() => {}, 1000)", {
      signal: controller.signal,
      onSpawn: (p) => {
        pid = p;
      },
      onStdoutLine: () => controller.abort(),
    });
    const outcome = await run.done;
    expect(outcome.aborted).toBe(true);
    expect(outcome.signal).toBe("SIGTERM");
    expect(isProcessGone(pid)).toBe(true);
  });

  it("kills what the CLI left running in its group when it exits", async () => {
    const run = node(`
      const { spawn } = require("node:child_process");
      const helper = spawn(process.execPath, ["-e", "setInterval(()=>{},1000)"], { stdio: "ignore" });
      console.log(helper.pid);
      helper.unref();
    `);
    await run.done;
    expect(await waitUntilGone(Number(run.stdout[0]), 10_000)).toBe(true);
  });

  it("names a missing command and how to look for it", async () => {
    await expect(
      spawnAgentCli({
        command: "uwf-no-such-cli",
        args: [],
        cwd: process.cwd(),
        env: { PATH: "/nonexistent" },
        notFoundHint: "Install it with npm.",
      }),
    ).rejects.toMatchObject({
      code: "AGENT_FAILED",
      message: expect.stringContaining('"uwf-no-such-cli" not found in PATH'),
      hint: "Install it with npm.",
    });
  });
});

describe("findOnPath", () => {
  it("finds a command on PATH and not one that is missing", () => {
    expect(findOnPath("node", { PATH: process.env.PATH }, "/")).toMatch(/node$/);
    expect(findOnPath("node", { PATH: "" }, "/")).toBeNull();
  });
});
