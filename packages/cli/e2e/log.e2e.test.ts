import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("uwf log", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

  it("records one JSON line per event of a thread's life and filters them", async () => {
    await uwf("workflow", "add", "examples/hello.yaml");
    const thread = (await uwf("thread", "start", "hello", "-p", "Greet Ada")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      {
        role: "greeter",
        output: { $status: "done", greeting: "Hi Ada" },
        stderr: "thinking about Ada",
      },
    ]);
    const exec = await uwf(
      "thread",
      "exec",
      thread,
      "--agent",
      `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
    );
    expect(exec.code).toBe(0);

    const day = new Date().toISOString().slice(0, 10);
    const lines = readFileSync(join(temp.home, "logs", `${day}.jsonl`), "utf8")
      .trim()
      .split("\n");
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();

    const list = JSON.parse((await uwf("log", "list", "--format", "json")).stdout);
    expect(list.files.map((f: { date: string }) => f.date)).toEqual([day]);

    const shown = JSON.parse(
      (await uwf("log", "show", "--thread", thread, "--format", "json")).stdout,
    );
    const events = shown.events.map((e: { event: string }) => e.event);
    expect(events).toEqual(
      expect.arrayContaining([
        "thread.start",
        "step.start",
        "adapter.output",
        "step.done",
        "thread.completed",
      ]),
    );
    // A foreground exec logs what a second terminal needs to follow it, each line with its thread.
    expect(shown.events.every((e: { thread: string }) => e.thread === thread)).toBe(true);
    expect(shown.events).toContainEqual(
      expect.objectContaining({ event: "step.start", role: "greeter", stepNumber: 1 }),
    );
    expect(shown.events).toContainEqual(
      expect.objectContaining({
        event: "adapter.output",
        role: "greeter",
        line: "thinking about Ada",
      }),
    );

    const onlyDone = JSON.parse(
      (await uwf("log", "show", "--event", "step.done", "--format", "json")).stdout,
    );
    expect(onlyDone.events).toHaveLength(1);
    expect(onlyDone.events[0]).toMatchObject({
      event: "step.done",
      role: "greeter",
      status: "done",
    });
  });

  it("skips lines that are not JSON instead of failing", async () => {
    mkdirSync(join(temp.home, "logs"));
    writeFileSync(
      join(temp.home, "logs", "2026-01-02.jsonl"),
      '{"ts":"t","level":"info","event":"a"}\nnot json\n',
    );
    const shown = await uwf("log", "show", "2026-01-02", "--format", "json");
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ skipped: 1, events: [{ event: "a" }] });
  });

  it("cleans files older than the kept days and leaves other files alone", async () => {
    mkdirSync(join(temp.home, "logs"));
    const today = new Date().toISOString().slice(0, 10);
    for (const name of ["2020-01-01.jsonl", "2020-01-02.jsonl", `${today}.jsonl`, "notes.txt"]) {
      writeFileSync(join(temp.home, "logs", name), "{}\n");
    }
    const cleaned = await uwf("log", "clean", "--older-than", "7", "--format", "json");
    expect(JSON.parse(cleaned.stdout).deleted).toEqual(["2020-01-01", "2020-01-02"]);
    const left = JSON.parse((await uwf("log", "list", "--format", "json")).stdout).files.map(
      (f: { date: string }) => f.date,
    );
    expect(left).toEqual([today]);
    expect(readFileSync(join(temp.home, "logs", "notes.txt"), "utf8")).toBe("{}\n");
  });

  it("says a day has no log (exit 1), and refuses a malformed day or --older-than (exit 2)", async () => {
    const missing = await uwf("log", "show", "1999-01-01", "--format", "json");
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr).error).toMatchObject({
      code: "LOG_NOT_FOUND",
      hint: expect.stringContaining("uwf log list"),
    });
    expect((await uwf("log", "show", "01/01/1999")).code).toBe(2);
    expect((await uwf("log", "clean", "--older-than", "soon")).code).toBe(2);
  });
});
