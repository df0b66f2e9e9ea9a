import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { UwfEvent } from "@united-workforce/protocol";
import { openStore, type Store } from "@united-workforce/store";
import {
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  waitUntilGone,
  writeScenario,
} from "@united-workforce/test-utils";
import { createEventStream, ioError, isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caught, deadPid } from "../../../store/src/__testing__/store-fixtures.js";
import { relay } from "../__fixtures__/workflows.js";
import { testRun } from "../__testing__/run-context.js";
import { runSteps } from "../runner/run-loop.js";
import { takeThread } from "./lease.js";

let temp: TempHome;
let store: Store;
beforeEach(async () => {
  temp = tempHome();
  store = await openStore({ home: temp.home, host: "this-host" });
});
afterEach(async () => {
  await store.close();
  temp.cleanup();
});

describe("takeThread", () => {
  it("says when it takes over a lock a gone process left behind", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const gone = deadPid();
    mkdirSync(join(temp.home, "locks"), { recursive: true });
    writeFileSync(
      join(temp.home, "locks", `${thread}.lock`),
      JSON.stringify({
        thread,
        token: "old-token",
        holder: { host: "this-host", pid: gone, startTime: "12345" },
        command: "uwf thread exec",
        acquiredAt: "2025-01-01T00:00:00.000Z",
        expiresAt: "2025-01-01T00:00:30.000Z",
        child: null,
      }),
    );
    const events: UwfEvent[] = [];
    const lease = await takeThread(
      store,
      thread,
      "uwf thread exec",
      createEventStream((e) => events.push(e)),
    );
    await lease.release();
    expect(events).toMatchObject([
      {
        event: "thread.takeover",
        thread,
        holder: gone,
        host: "this-host",
        command: "uwf thread exec",
        agentStopped: false,
      },
    ]);
  });

  it("says nothing when the lock was free", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const events: UwfEvent[] = [];
    const lease = await takeThread(
      store,
      thread,
      "uwf thread exec",
      createEventStream((e) => events.push(e)),
    );
    await lease.release();
    expect(events).toEqual([]);
  });
});

describe("a lock that cannot record its agent (a full disk)", () => {
  it("fails the run with the IO error and stops the agent; the release leaves no lock", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const scenario = writeScenario(temp.home, [
      // Far longer than the test waits: only the failed lock write ends it.
      { role: "writer", delay_ms: 600_000, output: { $status: "written", text: "late" } },
    ]);
    const lease = await takeThread(store, thread, "uwf thread exec");
    const record = lease.setChild.bind(lease);
    let agent: number | null = null;
    lease.setChild = async (child) => {
      if (child === null) return record(child);
      agent = child.pid;
      const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), {
        code: "ENOSPC",
        syscall: "write",
      });
      throw ioError(enospc, join(temp.home, "locks", `${thread}.lock`));
    };
    const run = testRun({
      store,
      cwd: temp.home,
      config: () => ({}),
      env: { PATH: process.env.PATH, UWF_ADAPTER_WATCH_PARENT: "0" },
      signal: new AbortController().signal,
      events: createEventStream(),
    });
    const error = await caught(() =>
      runSteps(run, thread, {
        count: 1,
        agentFlag: `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`,
        lease,
      }),
    );
    expect(isUwfError(error) && error.code).toBe("IO");
    expect(error.message).toContain("(ENOSPC)");
    expect(agent).not.toBeNull();
    expect(await waitUntilGone(agent!, 20_000)).toBe(true);
    await lease.release();
    expect(await store.leases.read(thread)).toBeNull();
    expect((await store.threads.get(thread)).steps).toBe(0);
  });
});
