import type { ThreadPointer } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import type { RecordedStep } from "../../history/recordings.js";
import { compare } from "./compare.js";

const THREAD = "01M85WH4VSV3QXAJD4JPQATHZK";
const REPLAY = "01M85WH6D11BQ7V38RJ5C9VGZS";

function steps(...route: string[]): RecordedStep[] {
  return route.map((entry, i) => {
    const [role, status] = entry.split(" ") as [string, string];
    return {
      origin: "test",
      thread: THREAD,
      index: i + 1,
      hash: "0000000000000",
      role,
      status,
      edgePrompt: "",
      assembledPrompt: "0000000000000",
      output: "0000000000000",
      body: "0000000000000",
      agent: "uwf-replay",
    };
  });
}

function run(
  recorded: RecordedStep[],
  replayed: RecordedStep[],
  more: { recordedStatus?: string; status?: string; report?: Record<string, unknown> } = {},
) {
  return compare({
    thread: THREAD,
    origin: `thread ${THREAD}`,
    recorded,
    recordedStatus: more.recordedStatus ?? "completed",
    replayThread: REPLAY,
    replayed,
    replayPointer: { status: more.status ?? "completed", currentRole: null } as ThreadPointer,
    message: "the agent failed",
    lastReport: more.report ?? null,
  });
}

const RECORDED = steps("planner ready", "developer done", "reviewer approved");

describe("compare (uwf workflow test)", () => {
  it("finds the same route when every role and status match and both ended", () => {
    expect(
      run(RECORDED, steps("planner ready", "developer done", "reviewer approved")),
    ).toMatchObject({
      result: "same",
      step: null,
      reason: "",
    });
  });

  it("names the step before a changed edge and both roles", () => {
    const result = run(RECORDED, steps("planner ready", "tester passed"));
    expect(result).toMatchObject({
      result: "different",
      step: 2,
      reason:
        "after `planner` → `ready`, the workflow now routes to `tester` (recorded: `developer`)",
    });
  });

  it("calls a miss on another role than the recorded one a different route (the edge changed first)", () => {
    const report = { kind: "miss", role: "tester", prompt: "0000000000000", nearest: null };
    expect(run(RECORDED, steps("planner ready"), { status: "suspended", report })).toMatchObject({
      result: "different",
      step: 2,
    });
  });

  it("reports a miss on the recorded role with its nearest prompt", () => {
    const nearest = {
      origin: "thread x",
      thread: THREAD,
      step: 2,
      hash: "0000000000000",
      differentLines: 2,
      firstDifference: { line: 5, recorded: "a", now: "b" },
    };
    const report = { kind: "miss", role: "developer", prompt: "1111111111111", nearest };
    expect(run(RECORDED, steps("planner ready"), { status: "suspended", report })).toMatchObject({
      result: "miss",
      step: 2,
      miss: { role: "developer", prompt: "1111111111111", nearest },
    });
  });

  it("sees a workflow that now ends earlier, or goes on after the recording completed", () => {
    expect(run(RECORDED, steps("planner ready", "developer done"))).toMatchObject({
      result: "different",
      step: 3,
      reason: "after `developer` → `done`, the workflow now ends (recorded: `reviewer` next)",
    });
    const longer = run(
      RECORDED,
      steps("planner ready", "developer done", "reviewer approved", "tester passed"),
    );
    expect(longer).toMatchObject({ result: "different", step: 4 });
    expect(longer.reason).toContain(
      "the recorded thread completed; the workflow now goes on to `tester`",
    );
  });

  it("does not ask a recording that never completed to end", () => {
    const partial = steps("planner ready", "developer done");
    expect(
      run(partial, steps("planner ready", "developer done"), {
        recordedStatus: "idle",
        status: "idle",
      }),
    ).toMatchObject({ result: "same" });
  });

  it("says why a replay stopped for another reason than a miss", () => {
    expect(run(RECORDED, steps("planner ready"), { status: "suspended" })).toMatchObject({
      result: "stopped",
      step: 2,
      reason: "the replay stopped before `developer`: the agent failed",
    });
  });
});
