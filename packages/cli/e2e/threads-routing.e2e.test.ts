import { join } from "node:path";
import {
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const fixture = join(import.meta.dirname, "fixtures", "routing", "blank-edge.yaml");

describe("routing after a good step", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  it("suspends the thread with the moderator's reason and exits 4 when the next edge prompt renders blank", async () => {
    const uwf = (...args: string[]) => runUwf(args, { home: temp.home });
    const thread = (await uwf("thread", "start", fixture, "-p", "Write")).stdout.trim();
    const scenario = writeScenario(temp.home, [
      { role: "writer", output: { $status: "done" } },
      { role: "reader", output: { $status: "done" } },
    ]);
    const agent = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${scenario}`;

    const exec = await uwf(
      "thread",
      "exec",
      thread,
      "-c",
      "3",
      "--agent",
      agent,
      "--format",
      "json",
    );
    expect(exec.code).toBe(4);
    const doc = JSON.parse(exec.stdout);
    expect(doc).toMatchObject({ status: "suspended", stoppedBecause: "failed" });
    expect(doc.steps).toHaveLength(1);
    expect(doc.message).toContain("{{{note}}}");

    const show = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
    expect(show).toMatchObject({
      status: "suspended",
      steps: 1,
      suspended: { kind: "failure", role: "writer" },
    });
  });
});
