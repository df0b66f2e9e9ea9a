import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import {
  isProcessGone,
  runBin,
  runUwf,
  sleep,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("malformed input and faults", () => {
  let temp: TempHome;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });
  beforeEach(() => {
    temp = tempHome();
  });
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.pid && !isProcessGone(child.pid)) child.kill("SIGKILL");
    child = undefined;
    temp.cleanup();
  });

  /** Start `uwf …` with piped output; resolves with how it ended. */
  function startUwf(args: string[], env: Record<string, string> = {}) {
    child = spawn(process.execPath, [UWF_BIN, ...args], {
      env: { ...process.env, UWF_HOME: temp.home, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const started = child;
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      started.on("exit", (code, signal) => resolve({ code, signal })),
    );
    return { child: started, ended };
  }

  async function startHello(): Promise<string> {
    await uwf("workflow", "add", "examples/hello.yaml");
    return (await uwf("thread", "start", "hello", "-p", "Greet")).stdout.trim();
  }

  it("a number where config.yaml wants an agent alias is a config error naming the key", async () => {
    const thread = await startHello();
    writeFileSync(
      join(temp.home, "config.yaml"),
      "defaultAgent: 42\nagentOverrides:\n  hello: { greeter: 7 }\n",
    );
    const exec = await uwf("thread", "exec", thread, "--format", "json");
    expect(exec.code).toBe(1);
    expect(JSON.parse(exec.stderr).error).toMatchObject({
      code: "CONFIG_INVALID",
      message: `${join(temp.home, "config.yaml")} is invalid:\n  defaultAgent must be a string, got 42\n  agentOverrides.hello.greeter must be a string, got 7`,
    });
    const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(show).toMatchObject({ status: "idle", steps: 0 });
  });

  it("keeps a new UWF_HOME for its owner: the folder 0700, the files uwf writes 0600", async () => {
    const home = join(temp.home, "fresh", "uwf");
    const run = (...args: string[]) => runUwf(args, { home: temp.home, env: { UWF_HOME: home } });
    const scenario = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "hi" } },
    ]);
    await run("workflow", "add", "examples/hello.yaml");
    const thread = (await run("thread", "start", "hello", "-p", "Greet")).stdout.trim();
    const exec = await run(
      "thread",
      "exec",
      thread,
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
    );
    expect(exec.code).toBe(0);
    const mode = (path: string) => (statSync(join(home, path)).mode & 0o777).toString(8);
    expect(mode(".")).toBe("700");
    expect(mode("logs")).toBe("700");
    for (const log of readdirSync(join(home, "logs"))) expect(mode(`logs/${log}`)).toBe("600");
    expect(mode(`threads/${thread}.json`)).toBe("600");
    expect(mode("workflows/hello.json")).toBe("600");
    expect(mode("cache")).toBe("700");
    expect(mode("cache/validators")).toBe("700");
    for (const file of readdirSync(join(home, "cache/validators")))
      expect(mode(`cache/validators/${file}`)).toBe("600");
  });

  it("a reader that goes away mid-step interrupts the exec: agent stopped, lock released, exit 130", async () => {
    const thread = await startHello();
    const chatty = join(temp.home, "chatty-agent.mjs");
    writeFileSync(
      chatty,
      'process.stderr.write("working as " + process.pid + "\\n");\nsetInterval(() => process.stderr.write("still working\\n"), 20);\n',
    );
    // `uwf thread exec … 2>&1 | head -1`: both ends close after the first line.
    const exec = startUwf(["thread", "exec", thread, "--agent", `${process.execPath} ${chatty}`]);
    const agentPid = await new Promise<number>((resolve) =>
      exec.child.stderr!.once("data", (chunk: Buffer) => {
        exec.child.stderr!.destroy();
        exec.child.stdout!.destroy();
        resolve(Number(/working as (\d+)/.exec(chunk.toString())?.[1]));
      }),
    );
    expect(await exec.ended).toEqual({ code: 130, signal: null });
    expect(isProcessGone(agentPid)).toBe(true);
    expect(existsSync(join(temp.home, "locks", `${thread}.lock`))).toBe(false);
    const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(show).toMatchObject({ status: "idle", steps: 0, lockHolder: null });
  });

  it("SIGHUP (the terminal closed) stops the agent, releases the lock and is logged", async () => {
    const thread = await startHello();
    const scenario = writeScenario(temp.home, [
      { role: "greeter", delay_ms: 60_000, output: { $status: "done", greeting: "late" } },
    ]);
    const exec = startUwf(
      [
        "thread",
        "exec",
        thread,
        "--agent",
        `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
      ],
      // The adapter's own parent watch is off: what uwf does is under test.
      { UWF_ADAPTER_WATCH_PARENT: "0" },
    );
    const lockFile = join(temp.home, "locks", `${thread}.lock`);
    let agentPid: number | undefined;
    while (agentPid === undefined) {
      try {
        agentPid = JSON.parse(readFileSync(lockFile, "utf8")).child?.pid;
      } catch {
        // Not written yet, or being rewritten.
      }
      if (agentPid === undefined) await sleep(20);
    }
    exec.child.kill("SIGHUP");
    expect(await exec.ended).toEqual({ code: 130, signal: null });
    expect(isProcessGone(agentPid)).toBe(true);
    expect(existsSync(lockFile)).toBe(false);
    const log = readdirSync(join(temp.home, "logs"))
      .map((file) => readFileSync(join(temp.home, "logs", file), "utf8"))
      .join("");
    expect(log).toMatch(/"event":"command.interrupted"[^\n]*"by":"SIGHUP"/);
  });

  it("Ctrl-C ends a command at once even while it is blocked in synchronous work", async () => {
    const fifo = join(temp.home, "input.fifo");
    execFileSync("mkfifo", [fifo]);
    const put = startUwf(["cas", "put-text", "-f", fifo]);
    // Opening the write end returns once uwf has opened the FIFO: it now waits in a read.
    const writer = await open(fifo, "w");
    put.child.kill("SIGINT");
    // Only a uwf that ignored the signal is still there to read the end of the input.
    await writer.close();
    expect(await put.ended).toEqual({ code: null, signal: "SIGINT" });
  });

  it("an adapter's escape sequences never reach the terminal, live or in the failure", async () => {
    const thread = await startHello();
    const hostile = join(temp.home, "hostile-agent.mjs");
    writeFileSync(
      hostile,
      [
        'process.stderr.write("\\u001b]0;pwned\\u0007\\u001b[2Jworking \\u001b[31mhard\\u001b[0m\\r\\n");',
        'process.stdout.write("\\u001b[2Jnot json\\n");',
        'process.stderr.write("giving up\\u001b[8m hidden\\n", () => process.exit(1));',
      ].join("\n"),
    );
    const exec = await uwf("thread", "exec", thread, "--agent", `${process.execPath} ${hostile}`);
    expect(exec.code).toBe(4);
    expect(exec.stderr).toContain("working hard\n");
    // Reported once, on stderr: its output as it came, then why it failed.
    expect(exec.stderr).toContain("exited with code 1\n");
    expect(exec.stderr.match(/giving up hidden/g)).toHaveLength(1);
    expect(exec.stdout).toContain(`role "greeter" failed (reported above on stderr)`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them.
    const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    expect(exec.stderr).not.toMatch(controls);
    expect(exec.stdout).not.toMatch(controls);
    const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(show.suspended.reason).not.toMatch(controls);

    // Quoted in the message when its last stdout line is not a result.
    const liar = join(temp.home, "liar-agent.mjs");
    writeFileSync(liar, 'process.stdout.write("\\u001b]0;pwned\\u0007\\u001b[2Jnot json\\n");\n');
    const retry = await uwf("thread", "resume", thread, "--agent", `${process.execPath} ${liar}`);
    expect(retry.code).toBe(4);
    expect(retry.stderr).toContain("the adapter's last stdout line is not JSON: not json");
    expect(retry.stderr).not.toMatch(controls);
  });

  it("an adapter printing a secret it was given shows it to no one: terminal, reason, log", async () => {
    const thread = await startHello();
    const token = "ghp_e2eSecretValue0123456789";
    const leaky = join(temp.home, "leaky-agent.mjs");
    writeFileSync(
      leaky,
      `process.stderr.write("using " + process.env.GITHUB_TOKEN + "\\n", () => process.exit(1));\n`,
    );
    const exec = await runUwf(
      ["thread", "exec", thread, "--agent", `${process.execPath} ${leaky}`],
      {
        home: temp.home,
        env: { GITHUB_TOKEN: token },
      },
    );
    expect(exec.code).toBe(4);
    expect(exec.stderr).toContain("using ****\n");
    const show = await uwf("thread", "show", thread, "--format", "json");
    const log = await uwf("log", "show", "--thread", thread);
    expect(JSON.parse(show.stdout).suspended.reason).toContain("using ****");
    expect(log.stdout).toContain("using ****");
    for (const text of [exec.stdout, exec.stderr, show.stdout, log.stdout]) {
      expect(text).not.toContain(token);
    }
  });

  it("quotes a configured command in the shell command it suggests", async () => {
    const thread = await startHello();
    writeFileSync(
      join(temp.home, "config.yaml"),
      "agents:\n  odd: { command: 'uwf-nope; touch x' }\ndefaultAgent: odd\n",
    );
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(4);
    expect(exec.stderr).toContain(
      `"uwf-nope; touch x" not found in PATH. Install it or check your PATH config. Run: which 'uwf-nope; touch x'`,
    );
  });

  it("run from a deleted directory, says so without a stack trace", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const gone = join(temp.home, "gone");
    mkdirSync(gone);
    const fromGone = (...args: string[]) =>
      runBin(
        "/bin/sh",
        [
          "-c",
          'cd "$1" && rmdir "$1" && shift && exec "$@"',
          "sh",
          gone,
          process.execPath,
          UWF_BIN,
          ...args,
        ],
        {
          env: { UWF_HOME: temp.home, HOME: temp.home },
        },
      );
    const start = await fromGone("thread", "start", "hello", "-p", "Greet");
    expect(start).toMatchObject({
      code: 1,
      stdout: "",
      stderr:
        "error: the current directory no longer exists (it was deleted or moved away)\nhint: cd to an existing directory and run the command again.\n",
    });
    // A command that does not need the working directory still works.
    mkdirSync(gone);
    expect((await fromGone("thread", "list")).code).toBe(0);
  });
});
