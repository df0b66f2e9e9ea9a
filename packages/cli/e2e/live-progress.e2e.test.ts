import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  runUwf,
  type StartedProcess,
  sleep,
  startBin,
  startUwf,
  type TempHome,
  tempHome,
  UWF_BIN,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const ESC = "\u001b";
/** Cursor up one line, to its start, clear to the end of the screen: a status line redrawn. */
const REDRAW = `${ESC}[1A\r${ESC}[J`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for colour codes.
const COLOUR = /\u001b\[(3\d|1|2|22|39)m/;
const CLOCK = /^\d\d:\d\d:\d\d /;

/** A role that loops once (`more`), then ends with an `$END` message. */
const DRAFTS = `name: drafts
roles:
  writer:
    description: Writes drafts.
    frontmatter:
      type: object
      properties:
        $status: { enum: [more, done] }
        summary: { type: string }
      required: [$status, summary]
graph:
  $START:
    new: { role: writer, prompt: "Write the first draft." }
    resume: { role: writer, prompt: "Write it again." }
  writer:
    more: { role: writer, prompt: "Improve it: {{{summary}}}" }
    done: { role: $END, prompt: "Finished: {{{summary}}}" }
`;

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Poll `condition` (what the test waits to see), failing after a generous overall time. */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("live progress", () => {
  let temp: TempHome;
  let gate: string;
  let agent: string;
  beforeEach(() => {
    temp = tempHome();
    gate = join(temp.home, "gate");
    writeFileSync(join(temp.home, "drafts.yaml"), DRAFTS);
    // Step 1 answers at once; step 2 waits until the test has seen step 1 end, then opens the gate.
    const scenario = writeScenario(temp.home, [
      {
        role: "writer",
        stderr: "drafting the opening",
        output: { $status: "more", summary: "a rough draft" },
        usage: { inputTokens: 1200, outputTokens: 340, costUsd: 0.0123 },
      },
      {
        role: "writer",
        wait_for: "gate",
        stderr: "polishing",
        output: { $status: "done", summary: "a polished draft" },
      },
    ]);
    agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
  });
  afterEach(() => temp.cleanup());

  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

  async function newThread(): Promise<string> {
    expect((await uwf("workflow", "add", join(temp.home, "drafts.yaml"))).code).toBe(0);
    return (await uwf("thread", "start", "drafts", "-p", "Write a note")).stdout.trim();
  }

  /**
   * `uwf <args>` in a real pseudo-terminal of 100×30 (util-linux `script`): stdout and stderr
   * both go to it unless `redirect` sends stdout to a file. The env says what a terminal says.
   */
  function inTerminal(
    args: string[],
    env: Record<string, string | undefined> = {},
    redirect = "",
  ): StartedProcess {
    const command = [process.execPath, UWF_BIN, ...args].map(shellQuote).join(" ");
    return startBin(
      "script",
      ["-qfec", `stty rows 30 cols 100; exec ${command}${redirect}`, "/dev/null"],
      {
        env: {
          UWF_HOME: temp.home,
          HOME: temp.home,
          TERM: "xterm-256color",
          CI: undefined,
          CONTINUOUS_INTEGRATION: undefined,
          NO_COLOR: undefined,
          ...env,
        },
      },
    );
  }

  it("on a terminal, redraws a status line per running step and ends each with a final line, as it happens", async () => {
    const thread = await newThread();
    const run = inTerminal(["thread", "exec", thread, "-c", "5", "--agent", agent]);
    // Step 1's final line arrives while the exec still runs (step 2 waits for the gate), and
    // step 2's status line is drawn, then redrawn as its time ticks.
    await until(() => /✓ .*#1 .*writer.* → .*more/.test(run.stdout()), "step 1's final line");
    await until(
      () => (run.stdout().split(REDRAW).pop() ?? "").includes("#2"),
      "step 2's status line",
    );
    const drawn = run.stdout().length;
    await until(() => run.stdout().slice(drawn).includes(REDRAW), "a redraw of step 2's line");
    writeFileSync(gate, "");
    const result = await run.done;
    expect(result.code, result.stdout).toBe(0);

    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are stripped here.
    const plain = result.stdout.replace(/\u001b\[[0-9;]*m/g, "");
    expect(plain).toMatch(
      /[\u2800-\u28ff] “Write a note” #1 writer \(uwf-mock\) \d+s {2}drafting the opening/,
    );
    expect(plain).toContain("✓ “Write a note” #1 writer → more  ");
    expect(plain).toMatch(
      /#1 writer → more {2}[\d.]+ m?s · 1,200 in \/ 340 out tokens · \$0\.0123 {2}\w{13}/,
    );
    expect(plain).toMatch(/#2 writer → done {2}[\d.]+ m?s · tokens unknown · cost unknown/);
    expect(plain).toContain(`${thread}: completed — Finished: a polished draft`);
    expect(result.stdout).toMatch(COLOUR);
    // The last status line was cleared before the result: the result starts a clean line.
    expect(result.stdout).toMatch(new RegExp(`\\n${thread}: completed`));
  });

  it("off a terminal, prints timestamped lines as events happen, without escape codes", async () => {
    const thread = await newThread();
    writeFileSync(gate, "");
    const result = await uwf("thread", "exec", thread, "-c", "5", "--agent", agent);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain(ESC);
    const lines = result.stderr.trimEnd().split("\n");
    for (const line of lines) expect(line).toMatch(CLOCK);
    expect(lines.map((line) => line.replace(CLOCK, "").replace(/\d[\d.]* m?s/, "T"))).toEqual([
      `▶ #1 writer (uwf-mock) started on thread ${thread} “Write a note”`,
      "  writer │ drafting the opening",
      expect.stringMatching(
        /^✓ #1 writer → more {2}T · 1,200 in \/ 340 out tokens · \$0\.0123 · \w{13}$/,
      ),
      `▶ #2 writer (uwf-mock) started on thread ${thread} “Write a note”`,
      "  writer │ polishing",
      expect.stringMatching(/^✓ #2 writer → done {2}T · tokens unknown · cost unknown · \w{13}$/),
    ]);
    expect(result.stdout).toBe(`${thread}: completed — Finished: a polished draft\n`);
  });

  it("decides itself: a dumb or CI terminal gets plain lines, NO_COLOR a live line without colour", async () => {
    writeFileSync(gate, "");
    const ci = inTerminal(["thread", "exec", await newThread(), "-c", "5", "--agent", agent], {
      CI: "true",
    });
    const ciResult = await ci.done;
    expect(ciResult.code).toBe(0);
    expect(ciResult.stdout).not.toContain(ESC);
    expect(ciResult.stdout).toMatch(/\d\d:\d\d:\d\d ✓ #2 writer → done/);

    const noColour = inTerminal(
      ["thread", "exec", await newThread(), "-c", "5", "--agent", agent],
      {
        NO_COLOR: "1",
      },
    );
    const plain = await noColour.done;
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain(REDRAW);
    expect(plain.stdout).not.toMatch(COLOUR);
    expect(plain.stdout).toMatch(/✓ “Write a note” #2 writer → done/);
  });

  it("--quiet shows only the result, and --format json keeps stdout a clean document", async () => {
    writeFileSync(gate, "");
    const quiet = inTerminal([
      "thread",
      "exec",
      await newThread(),
      "-c",
      "5",
      "--quiet",
      "--agent",
      agent,
    ]);
    const quietResult = await quiet.done;
    expect(quietResult.code).toBe(0);
    expect(quietResult.stdout).not.toContain(ESC);
    expect(quietResult.stdout).not.toContain("drafting");
    expect(quietResult.stdout).toMatch(
      /^✓ writer → more .*\r\n✓ writer → done .*\r\n\w{26}: completed — Finished: a polished draft\r\n$/,
    );

    const thread = await newThread();
    const out = join(temp.home, "out.json");
    const json = inTerminal(
      ["thread", "exec", thread, "-c", "5", "--format", "json", "--agent", agent],
      {},
      ` > ${shellQuote(out)}`,
    );
    const jsonResult = await json.done;
    expect(jsonResult.code).toBe(0);
    // Progress stayed on the terminal (stderr), live but without colour.
    expect(jsonResult.stdout).toContain(REDRAW);
    expect(jsonResult.stdout).not.toMatch(COLOUR);
    const doc = JSON.parse(readFileSync(out, "utf8"));
    expect(doc).toMatchObject({
      thread,
      status: "completed",
      stoppedBecause: "completed",
      endMessage: "Finished: a polished draft",
    });
  });

  it("reports an agent's failure once, on stderr", async () => {
    const thread = await newThread();
    const failing = writeScenario(
      temp.home,
      [{ role: "writer", stderr: "reading the task\nno model configured", exit: 3 }],
      "failing.yaml",
    );
    const result = await uwf(
      "thread",
      "exec",
      thread,
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${failing}`,
    );
    expect(result.code).toBe(4);
    expect(result.stderr.match(/no model configured/g)).toHaveLength(1);
    expect(result.stderr).toMatch(
      /✗ #1 writer failed after [\d.]+ m?s: agent "uwf-mock" for role "writer" exited with code 3\n/,
    );
    expect(result.stdout).not.toContain("no model configured");
    expect(result.stdout).toBe(
      `${thread}: suspended — role "writer" failed (reported above on stderr)\nThe head did not move. To retry the step: uwf thread resume ${thread}\n`,
    );

    // Quiet, the failure is still reported, with the agent's last output, once.
    const quiet = await uwf(
      "thread",
      "resume",
      thread,
      "--quiet",
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${failing}`,
    );
    expect(quiet.code).toBe(4);
    expect(quiet.stderr).toBe(
      `✗ #1 writer failed after ${/after ([\d.]+ m?s)/.exec(quiet.stderr)?.[1]}: agent "uwf-mock" for role "writer" exited with code 3\n  agent's last output:\n    reading the task\n    no model configured\n`,
    );
  });
});

describe("following a run from another terminal", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

  it("thread watch follows a background exec from what it is doing now to its end", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      {
        role: "greeter",
        wait_for: "gate",
        stderr: "writing the greeting",
        output: { $status: "done", greeting: "Hello, Ada!" },
        usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.0001 },
      },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    const background = await uwf("thread", "exec", thread, "--background", "--agent", agent);
    expect(background.code).toBe(0);
    expect(background.stdout).toContain(`uwf thread watch ${thread}`);

    const watch = startUwf(["thread", "watch", thread], { home: temp.home });
    await until(() => watch.stderr().includes("▶ #1 greeter"), "the running step");
    expect(watch.stderr()).toMatch(
      new RegExp(
        // The worker may not have begun its step when the watch starts.
        `^Watching thread ${thread}: running(, no step under way yet| step 1, role "greeter" \\(uwf-mock\\)); exec pid \\d+`,
      ),
    );
    writeFileSync(join(temp.home, "gate"), "");
    const result = await watch.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\d\d:\d\d:\d\d {3}greeter │ writing the greeting\n/);
    expect(result.stderr).toMatch(
      /\d\d:\d\d:\d\d ✓ #1 greeter → done {2}[\d.]+ m?s · 10 in \/ 5 out tokens · \$0\.0001 · \w{13}\n$/,
    );
    expect(result.stdout).toBe(
      `${thread}: completed after 1 step — Greeting delivered: Hello, Ada!\n`,
    );

    // Not running: the state, at once.
    const again = await uwf("thread", "watch", thread, "--format", "json");
    expect(JSON.parse(again.stdout)).toMatchObject({
      thread,
      status: "completed",
      followed: false,
      endMessage: "Greeting delivered: Hello, Ada!",
    });
  });

  it("a watch stopped with Ctrl-C leaves the exec running; join then shows the rest", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "greeter", wait_for: "gate", output: { $status: "done", greeting: "Hi, Ada" } },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    await uwf("thread", "exec", thread, "--background", "--agent", agent);
    const watch = startUwf(["thread", "watch", thread], { home: temp.home });
    await until(() => watch.stderr().includes("▶ #1 greeter"), "the running step");
    watch.child.kill("SIGINT");
    const stopped = await watch.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/… #1 greeter still running \([\d.]+ m?s so far\)\n$/);
    expect(stopped.stdout).toBe(`${thread}: running — stopped watching; the exec goes on\n`);

    const joining = startUwf(["thread", "join", thread], { home: temp.home });
    await until(() => joining.stderr().includes("▶ #1 greeter"), "join showing the running step");
    writeFileSync(join(temp.home, "gate"), "");
    const joined = await joining.done;
    expect(joined.code).toBe(0);
    expect(joined.stderr).toMatch(/✓ #1 greeter → done .*\n$/);
    expect(joined.stdout).toBe(`${thread}: completed after 1 step\n`);
  });

  it("thread watch exits 4 when the run it follows ends in an agent's failure", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "greeter", wait_for: "gate", stderr: "out of credit", exit: 2 },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    await uwf("thread", "exec", thread, "--background", "--agent", agent);
    const watch = startUwf(["thread", "watch", thread], { home: temp.home });
    await until(() => watch.stderr().includes("▶ #1 greeter"), "the running step");
    writeFileSync(join(temp.home, "gate"), "");
    const result = await watch.done;
    expect(result.code).toBe(4);
    expect(result.stderr.match(/out of credit/g)).toHaveLength(1);
    expect(result.stderr).toContain("✗ #1 greeter failed after");
    expect(result.stdout).toBe(
      `${thread}: suspended after 0 steps — role "greeter" failed (reported above on stderr). To retry the step: uwf thread resume ${thread}\n`,
    );
  });

  it("thread join says an agent's failure once: its stderr shown live, not again in the result", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "greeter", wait_for: "gate", stderr: "out of credit", exit: 2 },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;
    await uwf("thread", "exec", thread, "--background", "--agent", agent);
    const joining = startUwf(["thread", "join", thread], { home: temp.home });
    await until(() => joining.stderr().includes("▶ #1 greeter"), "join showing the running step");
    writeFileSync(join(temp.home, "gate"), "");
    const result = await joining.done;
    expect(result.code).toBe(4);
    expect(`${result.stderr}${result.stdout}`.match(/out of credit/g)).toHaveLength(1);
    expect(result.stdout).toBe(
      `${thread}: suspended after 0 steps — role "greeter" failed (reported above on stderr). To retry the step: uwf thread resume ${thread}\n`,
    );
  });

  it("log show -f prints matching events as they are appended, until Ctrl-C", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const follow = startUwf(
      ["log", "show", "-f", "--thread", thread, "--event", "step.", "--format", "json"],
      { home: temp.home },
    );
    const scenario = writeScenario(temp.home, [
      { role: "greeter", output: { $status: "done", greeting: "Hi" } },
    ]);
    const exec = await uwf(
      "thread",
      "exec",
      thread,
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
    );
    expect(exec.code).toBe(0);
    await until(() => follow.stdout().includes('"step.done"'), "the step.done line");
    follow.child.kill("SIGINT");
    const result = await follow.done;
    expect(result.code).toBe(130);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((e) => e.event)).toEqual(["step.start", "step.done"]);
    expect(events.every((e) => e.thread === thread)).toBe(true);
  });
});
