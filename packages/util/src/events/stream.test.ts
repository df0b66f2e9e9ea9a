import type { UwfEvent } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { createEventStream } from "./stream.js";

const PARENT = "01KB7ZQ0000000000000000000";
const CHILD = "01KB7ZQ0000000000000000001";
const GRANDCHILD = "01KB7ZQ0000000000000000002";

describe("createEventStream", () => {
  it("stamps each event with its name and the time, for every listener in order", () => {
    const seen: string[] = [];
    const events = createEventStream(
      (e) => seen.push(`a:${e.event}`),
      (e) => seen.push(`b:${e.event}`),
    );
    const received: UwfEvent[] = [];
    const stop = events.subscribe((e) => received.push(e));
    events.emit("workflow.rm", { workflow: "hello" });
    stop();
    events.emit("workflow.rm", { workflow: "again" });
    expect(seen).toEqual(["a:workflow.rm", "b:workflow.rm", "a:workflow.rm", "b:workflow.rm"]);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ event: "workflow.rm", workflow: "hello" });
    expect(received[0]!.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it("names the parent on a fan-out child's events, and a grandchild's own parent", () => {
    const received: UwfEvent[] = [];
    const top = createEventStream((e) => received.push(e));
    const child = top.forChild(PARENT);
    child.emit("step.aborted", { thread: CHILD, role: "r" });
    child.forChild(CHILD).emit("step.aborted", { thread: GRANDCHILD, role: "r" });
    top.emit("step.aborted", { thread: PARENT, role: "r" });
    expect(received.map((e) => ("parent" in e ? e.parent : null))).toEqual([PARENT, CHILD, null]);
  });
});
