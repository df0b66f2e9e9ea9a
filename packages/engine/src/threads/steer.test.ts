import { openStore, type Store } from "@united-workforce/store";
import { seedThread, type TempHome, tempHome } from "@united-workforce/test-utils";
import { isUwfError } from "@united-workforce/util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { relay } from "../__fixtures__/workflows.js";
import { writePointer } from "../state/write-pointer.js";
import { guidanceLeft, recordedGuidance, steerThread, withGuidance } from "./steer.js";

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

const plan = { role: "a", prompt: "Do it.", location: null, prev: null, replaceHead: false };

describe("steerThread", () => {
  it("adds notes in order, and the next step's prompt carries them all", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    await steerThread(store, thread, "First.");
    const { pointer } = await steerThread(store, thread, "Second.");
    expect(pointer.guidance?.map((n) => n.text)).toEqual(["First.", "Second."]);
    const steered = withGuidance(plan, pointer);
    expect(steered.prompt).toBe(
      "Do it.\n\n## Guidance from a human\nFirst.\n\n## Guidance from a human\nSecond.",
    );
    expect(guidanceLeft(pointer, steered.guidance)).toBeUndefined();
    expect(withGuidance(plan, { ...pointer, guidance: [] })).toBe(plan);
  });

  it("keeps a note a steer wrote while an exec held an older pointer", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    await steerThread(store, thread, "Taken.");
    const read = await store.threads.get(thread);
    const taken = withGuidance(plan, read).guidance;
    // Meanwhile, a steer: the exec's write conflicts with it alone.
    await steerThread(store, thread, "Late.");
    const written = await writePointer(store, {
      ...read,
      steps: read.steps + 1,
      guidance: guidanceLeft(read, taken),
    });
    expect(written.steps).toBe(read.steps + 1);
    expect(written.guidance?.map((n) => n.text)).toEqual(["Late."]);
  });

  it("drops a note the running agent got live, though its steer came after the exec's read", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const read = await store.threads.get(thread);
    // Two steers while the step runs: the agent got the first (its detail says so), the
    // second came after its last turn. The step's write races both.
    const { note: live } = await steerThread(store, thread, "Live.");
    await steerThread(store, thread, "After its last turn.");
    const written = await writePointer(store, { ...read, steps: read.steps + 1 }, [live]);
    expect(written.guidance?.map((n) => n.text)).toEqual(["After its last turn."]);
    // The same race with only the live note: nothing waits after the step.
    const again = await store.threads.get(thread);
    const { note } = await steerThread(store, thread, "Live too.");
    const clean = await writePointer(store, { ...again, guidance: undefined }, [note]);
    expect(clean).not.toHaveProperty("guidance");
  });

  it("reads the notes a step's detail records as delivered live, skipping malformed ones", () => {
    const note = { text: "Live.", at: "2026-12-06T10:00:00Z", rev: 4 };
    const detail = {
      guidance: [
        { ...note, deliveredAt: "2026-12-06T10:00:02Z", afterTurn: 2 },
        { text: 5 },
        "junk",
      ],
    };
    expect(recordedGuidance(detail)).toEqual([
      { ...note, deliveredAt: "2026-12-06T10:00:02Z", afterTurn: 2 },
    ]);
    expect(recordedGuidance({})).toEqual([]);
    expect(recordedGuidance(null)).toEqual([]);
  });

  it("still refuses a conflict with any other write", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const read = await store.threads.get(thread);
    await writePointer(store, { ...read, title: "other" });
    await steerThread(store, thread, "Late.");
    const error = await writePointer(store, read).catch((e: unknown) => e);
    expect(isUwfError(error) && error.code).toBe("THREAD_CONFLICT");
  });

  it("refuses empty guidance and a completed or cancelled thread", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    await expect(steerThread(store, thread, " \n")).rejects.toMatchObject({ code: "USAGE" });
    const read = await store.threads.get(thread);
    await writePointer(store, { ...read, status: "cancelled" });
    await expect(steerThread(store, thread, "More.")).rejects.toMatchObject({
      code: "THREAD_STATE",
    });
  });
});
