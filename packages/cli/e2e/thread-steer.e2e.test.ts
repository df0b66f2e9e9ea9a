import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DRAFT_REVIEW,
  type ExecDoc,
  mockAgent,
  type Sandbox,
  sandbox,
  scenario,
  showStep,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

interface SteerDoc {
  thread: string;
  status: string;
  guidance: { text: string; at: string; rev: number }[];
}

/** The notes `thread show --format json` lists as pending (undefined: none). */
async function pendingGuidance(box: Sandbox, thread: string): Promise<SteerDoc["guidance"]> {
  return (await uwfJson<Partial<SteerDoc>>(box, ["thread", "show", thread])).guidance!;
}

/** draft-review: the writer drafts, the reviewer asks for changes, the writer drafts again. */
function threeSteps(): string {
  return scenario(sb, "steered", [
    { role: "writer", output: { $status: "drafted", title: "Draft" } },
    { role: "reviewer", output: { $status: "changes", notes: "Too long." } },
    { role: "writer", output: { $status: "drafted", title: "Shorter" } },
  ]);
}

describe("thread steer", () => {
  it("gives its note to the next step's prompt once, and thread show lists it until then", async () => {
    const agent = mockAgent(threeSteps());
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    const first = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "--agent", agent]);
    expect(first.steps).toHaveLength(1);

    const text = "Keep it under <50> words & plain.";
    const steer = await uwfJson<SteerDoc>(sb, ["thread", "steer", thread, "-p", text]);
    expect(steer).toMatchObject({ thread, status: "idle", guidance: [{ text }] });
    expect(await pendingGuidance(sb, thread)).toEqual(steer.guidance);
    const shown = await uwf(sb, ["thread", "show", thread]);
    expect(shown.stdout).toContain(`guidance  ${text}`);
    const read = await uwf(sb, ["thread", "read", thread]);
    expect(read.stdout).toContain(`## Pending guidance (${steer.guidance[0]!.at})\n\n${text}`);

    const run = await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "-c", "2", "--agent", agent]);
    const [steered, after] = run.steps.map((s) => s.hash) as [string, string];
    expect((await showStep(sb, steered)).edgePrompt).toContain(`## Guidance from a human\n${text}`);
    expect((await showStep(sb, after)).edgePrompt).not.toContain(text);
    expect(await pendingGuidance(sb, thread)).toBeUndefined();
    const transcript = (await uwf(sb, ["thread", "read", thread])).stdout;
    expect(transcript).not.toContain("## Pending guidance");
    expect(transcript).toContain(text);
  });

  it("refuses a completed thread, an unknown one and empty guidance", async () => {
    const done = scenario(sb, "done", [
      { role: "writer", output: { $status: "drafted", title: "Draft" } },
      { role: "reviewer", output: { $status: "approved" } },
    ]);
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    await uwfJson<ExecDoc>(sb, ["thread", "exec", thread, "-c", "2", "--agent", mockAgent(done)]);

    const completed = await uwf(sb, ["thread", "steer", thread, "-p", "More."]);
    expect(completed.code).toBe(1);
    expect(completed.stderr).toContain("is completed; no step will take the guidance");
    const unknown = await uwf(sb, ["thread", "steer", "01JD0000000000000000000000", "-p", "x"]);
    expect(unknown.code).not.toBe(0);
    const empty = await uwf(sb, ["thread", "steer", thread, "-p", "  "]);
    expect(empty.code).toBe(2);
  });

  it("keeps a pending note through export and import", async () => {
    const { thread } = await startThread(sb, DRAFT_REVIEW, "Write a note");
    await uwfJson<SteerDoc>(sb, ["thread", "steer", thread, "-p", "Be brief."]);
    const bundle = join(sb.home, "steered.jsonl");
    expect((await uwf(sb, ["thread", "export", thread, "-o", bundle])).code).toBe(0);

    const other = sandbox();
    try {
      expect((await uwf(other, ["thread", "import", bundle])).code).toBe(0);
      expect(await pendingGuidance(other, thread)).toMatchObject([{ text: "Be brief." }]);
      const run = await uwfJson<ExecDoc>(other, [
        "thread",
        "exec",
        thread,
        "--agent",
        mockAgent(threeSteps()),
      ]);
      expect((await showStep(other, run.steps[0]!.hash)).edgePrompt).toContain("Be brief.");
    } finally {
      other.cleanup();
    }
  });
});
