import { spawnSync } from "node:child_process";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { openStore, type Store } from "@united-workforce/store";
import {
  seedThread,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { StepCheck, StepRejected } from "./verify-step.js";

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

/** A thread with one writer step stored by the real uwf-mock: its result line and expectations. */
async function storedStep() {
  const { thread, start, schemas } = await seedThread(store, {
    workflow: relay,
    prompt: "Go",
    cwd: temp.home,
  });
  const scenario = writeScenario(temp.home, [
    { role: "writer", output: { $status: "written", text: "a line" } },
  ]);
  const run = spawnSync(
    process.execPath,
    [
      UWF_MOCK_BIN,
      "--scenario",
      scenario,
      "--thread",
      thread,
      "--role",
      "writer",
      "--prompt",
      "Go",
    ],
    { env: { ...process.env, UWF_HOME: temp.home }, encoding: "utf8" },
  );
  expect(run.status, run.stderr).toBe(0);
  const line = run.stdout.trim().split("\n").at(-1)!;
  const hash = (JSON.parse(line) as { stepHash: string }).stepHash;
  const file = join(temp.home, "cas", hash.slice(0, 2), `${hash}.json`);
  // The first step of a thread has no previous step.
  const expected = { prev: null, start, role: "writer", schema: schemas.writer! };
  return { line, hash, file, expected };
}

describe("StepCheck", () => {
  it("checks again after the exit when the early check failed (a line printed before its step)", async () => {
    const { line, hash, file, expected } = await storedStep();
    const check = new StepCheck(store.cas, expected);
    renameSync(file, `${file}.away`);
    await check.begin(line);
    renameSync(`${file}.away`, file);
    expect((await check.result(line)).hash).toBe(hash);
  });

  it("checks the last line when it is not the line checked early", async () => {
    const { line, expected } = await storedStep();
    const check = new StepCheck(store.cas, expected);
    await check.begin(line);
    await expect(check.result("not json")).rejects.toBeInstanceOf(StepRejected);
  });

  it("rejects a forged step whether or not it was checked early", async () => {
    const { line, expected } = await storedStep();
    const check = new StepCheck(store.cas, { ...expected, role: "reviewer" });
    await check.begin(line);
    await expect(check.result(line)).rejects.toThrow(/is for role "writer"/);
  });

  it("rejects an output whose $status holds an invisible character, naming it", async () => {
    const { hash, expected } = await storedStep();
    const step = (await store.cas.get(hash)).payload as Record<string, unknown>;
    const output = await store.cas.putNode({
      type: expected.schema,
      payload: { $status: "written\u200b", text: "a line" },
    });
    const forged = await store.cas.putNode({
      type: store.cas.builtin("step"),
      payload: { ...step, output: output.hash },
    });
    const line = JSON.stringify({ stepHash: forged.hash });
    await expect(new StepCheck(store.cas, expected).result(line)).rejects.toThrow(
      `the output of step ${forged.hash} is invalid: "$status" "written\\u{200B}" holds an invisible or control character (U+200B at position 8)`,
    );
  });
});
