import { agentCliPath } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "./fixtures/lifecycle/harness.js";
import { NOTE, type SteerLive, steerLive } from "./fixtures/steer-live.js";

// uwf-acp driving the real Claude Code ACP agent against the fake model: ACP takes no input
// mid-turn, so a note steered during the turn is the next prompt in the same session.
let sb: SteerLive;
beforeEach(async () => {
  sb = await steerLive({ UWF_ACP_BIN: agentCliPath("claude-agent-acp") });
});
afterEach(() => sb.cleanup());

describe("thread steer while an ACP agent's turn runs", () => {
  it("gives the note in a follow-up prompt once the turn ends; the step's answer is its reply", async () => {
    const { fake, uwfJson } = sb;
    const thread = await sb.newThread();
    const exec = sb.start(["thread", "exec", thread, "-c", "1", "--agent", "acp"]);

    // The agent's first model request holds its tool call: its turn is under way.
    await fake.held("tool");
    const steered = await uwfJson<{ guidance: { rev: number }[] }>([
      "thread",
      "steer",
      thread,
      "-p",
      NOTE,
    ]);
    await waitFor("the adapter to see the note", () => exec.stderr().includes("guidance waiting;"));
    fake.open("tool");
    fake.open("answer");
    const ran = await exec.done;
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(
      `guidance delivered to uwf-acp (note ${steered.guidance[0]!.rev})`,
    );

    const bodies = fake
      .requests()
      .filter((r) => r.url.startsWith("/v1/messages") && !r.url.includes("count_tokens"))
      .map((r) => JSON.stringify(r.body));
    const carrying = bodies.findIndex((body) =>
      body.includes(`## Guidance from a human\\n\\n${NOTE}`),
    );
    // Not in the turn's requests (ACP has no way in), but in the follow-up's.
    expect(carrying).toBeGreaterThanOrEqual(2);

    expect(await uwfJson<{ guidance?: unknown[] }>(["thread", "show", thread])).not.toHaveProperty(
      "guidance",
    );
    const steps = await uwfJson<{ steps: { hash: string; usage: { turns: number } }[] }>([
      "step",
      "list",
      thread,
    ]);
    expect(steps.steps[0]!.usage.turns).toBeGreaterThanOrEqual(3);
    const step = await uwfJson<{ detail: string }>(["step", "show", steps.steps[0]!.hash]);
    const detail = await uwfJson<{ payload: { guidance: { text: string; afterTurn: number }[] } }>([
      "cas",
      "get",
      step.detail,
    ]);
    expect(detail.payload.guidance).toEqual([
      expect.objectContaining({ text: NOTE, rev: steered.guidance[0]!.rev, afterTurn: 2 }),
    ]);
    const read = await sb.uwf(["thread", "read", thread]);
    expect(read.stdout).toContain("The writer, steered twice is done.");
    expect(read.stdout).toContain("Guidance delivered while it ran");
  }, 180_000);
});
