import type { UwfEvent } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import {
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { createEventStream } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { testRun } from "../__testing__/run-context.js";
import type { RunContext } from "../steps/context.js";
import { execNext, workThreads } from "./next.js";

let temp: TempHome;
let store: Store;
beforeEach(async () => {
  temp = tempHome();
  store = await openStore({ home: temp.home });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

function runWith(
  events: UwfEvent[],
  controller: AbortController,
  sleep?: RunContext["sleep"],
): RunContext {
  return testRun({
    store,
    cwd: temp.home,
    config: () => ({}),
    env: { PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" },
    signal: controller.signal,
    events: createEventStream((event) => events.push(event)),
    ...(sleep === undefined ? {} : { sleep }),
  });
}

const agent = (): string =>
  `${process.execPath} ${UWF_MOCK_BIN} --scenario ${writeScenario(temp.home, [
    { role: "writer", output: { $status: "written", text: "a line" } },
    { role: "reviewer", output: { $status: "approved" } },
  ])}`;

describe("execNext", () => {
  it("claims the oldest runnable thread, says so, runs it and releases it", async () => {
    const first = await seedThread(store, { workflow: relay, prompt: "one", cwd: temp.home });
    await seedThread(store, { workflow: relay, prompt: "two", cwd: temp.home });
    const events: UwfEvent[] = [];
    const ran = await execNext(runWith(events, new AbortController()), {
      count: 5,
      agent: agent(),
    });
    expect(ran?.document).toMatchObject({ thread: first.thread, status: "completed" });
    expect(events.find((e) => e.event === "exec.claim")).toMatchObject({
      thread: first.thread,
      workflow: "relay",
    });
    expect(await store.leases.read(first.thread)).toBeNull();
  });

  it("claims nothing when no thread is runnable", async () => {
    expect(await execNext(runWith([], new AbortController()), {})).toBeNull();
  });
});

describe("workThreads", () => {
  it("waits with a doubling pause up to its poll interval, says it once, and ends with 0", async () => {
    const events: UwfEvent[] = [];
    const controller = new AbortController();
    const pauses: number[] = [];
    const sleep = async (ms: number) => {
      pauses.push(ms);
      if (pauses.length === 6) controller.abort("SIGTERM");
    };
    const code = await workThreads(runWith(events, controller, sleep), { pollMaxMs: 500 }, () => {
      throw new Error("nothing should run");
    });
    expect(code).toBe(0);
    expect(pauses).toEqual([100, 200, 400, 500, 500, 500]);
    expect(events.filter((e) => e.event === "exec.idle")).toMatchObject([
      { workflow: null, pollMs: 500 },
    ]);
  });

  it("runs the threads there are, then waits for more", async () => {
    const a = await seedThread(store, { workflow: relay, prompt: "a", cwd: temp.home });
    const b = await seedThread(store, { workflow: relay, prompt: "b", cwd: temp.home });
    const controller = new AbortController();
    const ran: string[] = [];
    const code = await workThreads(
      runWith([], controller, async () => controller.abort("SIGTERM")),
      { count: 5, agent: agent(), pollMaxMs: 1000 },
      (result) => ran.push(`${result.document.thread} ${result.document.status}`),
    );
    expect(code).toBe(0);
    expect(ran).toEqual([`${a.thread} completed`, `${b.thread} completed`]);
  });
});
