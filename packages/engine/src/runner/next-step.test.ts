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
import { checkFirstStep } from "./next-step.js";

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

function mockAgent(steps: Parameters<typeof writeScenario>[1]): string {
  return `${process.execPath} ${UWF_MOCK_BIN} --scenario ${writeScenario(temp.home, steps)}`;
}

describe("checkFirstStep", () => {
  it("throws what the first step would: no agent configured for its role", async () => {
    const { thread } = await seedThread(store, { workflow: relay, prompt: "Go", cwd: temp.home });
    const engine = testRun({
      store,
      cwd: temp.home,
      config: () => ({}),
      env: { PATH: process.env.PATH },
      events: createEventStream(),
      signal: new AbortController().signal,
    });
    const pointer = await store.threads.get(thread);
    await expect(checkFirstStep(engine, pointer, {})).rejects.toMatchObject({
      code: "AGENT_UNKNOWN",
      message: 'no agent is configured for role "writer"',
    });
    await expect(
      checkFirstStep(engine, pointer, { agentFlag: "no-such-agent-command" }),
    ).rejects.toMatchObject({
      code: "AGENT_UNKNOWN",
      message: expect.stringContaining("unknown agent"),
    });
    await checkFirstStep(engine, pointer, { agentFlag: mockAgent([]) });
    // Nothing was run or written.
    expect(await store.threads.get(thread)).toEqual(pointer);
  });
});
