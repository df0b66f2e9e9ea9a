import { agentCliPath } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "./fixtures/lifecycle/harness.js";
import {
  LATE,
  NOTE,
  type SteerLive,
  steerBuiltinMidRun,
  steerLive,
} from "./fixtures/steer-live.js";

let sb: SteerLive;
beforeEach(async () => {
  sb = await steerLive({ UWF_CLAUDE_BIN: agentCliPath("claude") });
});
afterEach(() => sb.cleanup());

describe("thread steer while a step runs", () => {
  it("reaches the built-in agent before its next model request, once; a later note waits", async () => {
    await steerBuiltinMidRun(sb);
  }, 120_000);

  it("reaches Claude Code through its stream-json input, mid-turn and after its answer", async () => {
    const { fake, uwfJson } = sb;
    const thread = await sb.newThread();
    const exec = sb.start(["thread", "exec", thread, "-c", "1", "--agent", "claude"]);
    const delivered = (rev: number) => `guidance delivered to uwf-claude-code (note ${rev})`;

    // Claude holds for its model's tool call; the note is written to its stdin meanwhile.
    await fake.held("tool");
    const first = await uwfJson<{ guidance: { rev: number }[] }>([
      "thread",
      "steer",
      thread,
      "-p",
      NOTE,
    ]);
    await waitFor("the first note's delivery", () =>
      exec.stderr().includes(delivered(first.guidance[0]!.rev)),
    );
    fake.open("tool");
    // A note written while claude's answer is on its way gets a turn of its own after it.
    await fake.held("answer");
    const second = await uwfJson<{ guidance: { rev: number }[] }>([
      "thread",
      "steer",
      thread,
      "-p",
      LATE,
    ]);
    await waitFor("the second note's delivery", () =>
      exec.stderr().includes(delivered(second.guidance.at(-1)!.rev)),
    );
    fake.open("answer");
    const ran = await exec.done;
    expect(ran.code, ran.stderr).toBe(0);

    const bodies = fake
      .requests()
      .filter((r) => r.url.startsWith("/v1/messages") && !r.url.includes("count_tokens"))
      .map((r) => JSON.stringify(r.body));
    const heading = "## Guidance from a human\\n\\n";
    const mid = bodies.findIndex((body) => body.includes(`${heading}${NOTE}`));
    const late = bodies.findIndex((body) => body.includes(`${heading}${LATE}`));
    expect(mid).toBeGreaterThan(0);
    expect(late).toBeGreaterThan(mid);
    expect(await uwfJson<{ guidance?: unknown[] }>(["thread", "show", thread])).not.toHaveProperty(
      "guidance",
    );
    const read = await sb.uwf(["thread", "read", thread]);
    expect(read.stdout).toContain("The writer, steered twice is done.");
    expect(read.stdout.match(/Guidance delivered while it ran/g)).toHaveLength(2);
  }, 180_000);
});
