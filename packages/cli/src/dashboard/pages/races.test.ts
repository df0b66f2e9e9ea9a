import { describe, expect, it } from "vitest";
import type { RaceColumn, RaceView } from "../data/races.js";
import { raceSection } from "./races.js";

const THREAD = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
const RACE = "01ARZ3NDEKTSV4RRFFQ69G5FAW";
const AT = "0K4Q8Z3M1XH2C";
const usage = {
  inputTokens: 1200,
  outputTokens: 340,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  costUsd: 0.0123,
  turns: 1,
  durationMs: 2500,
};
const finished: RaceColumn = {
  thread: "01ARZ3NDEKTSV4RRFFQ69G5FB0",
  title: null,
  agent: "claude",
  status: "idle",
  outcome: "finished",
  step: {
    hash: "0K4Q8Z3M1XH2D",
    role: "writer",
    status: "drafted",
    durationMs: 2500,
    usage,
    output: { $status: "drafted", title: "<Short>" },
  },
  reason: null,
};
const failed: RaceColumn = {
  thread: "01ARZ3NDEKTSV4RRFFQ69G5FB1",
  title: null,
  agent: "codex",
  status: "suspended",
  outcome: "failed",
  step: null,
  reason: "agent timed out after 60 s",
};
const race = (extra: Partial<RaceView> = {}): RaceView => ({
  race: RACE,
  of: THREAD,
  at: AT,
  promoted: null,
  forks: [finished, failed],
  ...extra,
});

describe("the races section", () => {
  it("is absent for a thread never raced", () => {
    expect(raceSection(THREAD, []).text).toBe("");
  });

  it("puts each fork in a column: agent, status, outcome, output, tokens, cost, duration", () => {
    const text = raceSection(THREAD, [race()]).text;
    expect(text).toContain('<div class="race-columns">');
    expect(text.match(/<article class="race-fork/g)).toHaveLength(2);
    expect(text).toContain("<h3>claude</h3>");
    expect(text).toContain('<span class="badge out">drafted</span>');
    expect(text).toContain("1,200 in / 340 out");
    expect(text).toContain("$0.0123");
    expect(text).toContain("2.5 s");
    // Output values are escaped like every value the page shows.
    expect(text).toContain("&lt;Short&gt;");
    // A fork whose agent failed says why, and has no figures.
    expect(text).toContain("agent timed out after 60 s");
    expect(text).toContain("uwf thread race promote &lt;fork&gt;");
  });

  it("marks the winner once promoted, and a fork's page names the thread raced", () => {
    const won = { ...finished, outcome: "won" as const };
    const text = raceSection(failed.thread, [
      race({ promoted: won.thread, forks: [won, failed] }),
    ]).text;
    expect(text).toContain('class="race-fork o-won"');
    expect(text).toContain(`promoted <a class="mono" href="/threads/${won.thread}">`);
    expect(text).toContain(`<a class="mono" href="/threads/${THREAD}">${THREAD}</a>`);
    expect(text).toContain(`<b class="mono">${failed.thread}</b> (this thread)`);
  });
});
