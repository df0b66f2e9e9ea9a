import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runUwf, type TempHome, tempHome, writeScenario } from "@united-workforce/test-utils";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mockAgent,
  type RunningDashboard,
  SHIP_FEATURE,
  startDashboard,
  threadThrough,
} from "./dashboard-fixture.js";

/** A race on a thread's page in Chromium: its forks side by side, one column per agent. */
const CHROMIUM = process.env.UWF_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = process.env.UWF_DASHBOARD_SHOTS ?? join(tmpdir(), "uwf-dashboard-shots");

describe("a race on the dashboard", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  let mobile: Page;
  let thread: string;
  let forks: { thread: string; agent: string }[];

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    temp = tempHome();
    await runUwf(["workflow", "add", SHIP_FEATURE], { home: temp.home });
    thread = await threadThrough(temp.home, "planned", "Add dark mode", [
      { role: "planner", output: { $status: "ready", plan: "Add a theme switch." } },
    ]);
    const developer = (name: string, summary: string, costUsd: number) =>
      mockAgent(
        writeScenario(
          temp.home,
          [
            { role: "planner", output: { $status: "ready", plan: "Add a theme switch." } },
            {
              role: "developer",
              output: { $status: "done", summary },
              usage: { inputTokens: 1000, outputTokens: 200, costUsd },
            },
          ],
          `${name}.yaml`,
        ),
      );
    const fast = developer("fast", "Switch added", 0.01);
    const thorough = developer("thorough", "Switch added with tests", 0.04);
    const raced = await runUwf(
      ["thread", "race", thread, "--agents", `${fast},${thorough}`, "--format", "json"],
      { home: temp.home },
    );
    if (raced.code !== 0) throw new Error(`race failed: ${raced.stderr}`);
    forks = JSON.parse(raced.stdout).forks;
    dash = await startDashboard(temp.home);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    mobile = await (
      await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true })
    ).newPage();
    page.setDefaultTimeout(20_000);
    mobile.setDefaultTimeout(20_000);
    await page.goto(dash.url);
    await mobile.goto(dash.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.stop();
    temp?.cleanup();
  });

  it("shows the forks side by side with agent, status, output, tokens, cost and duration", async () => {
    await page.goto(`${dash.origin}/threads/${thread}`);
    const columns = page.locator(".race-columns > article");
    expect(await columns.count()).toBe(2);
    const [first, second] = [columns.nth(0), columns.nth(1)];
    expect(await first.locator("h3").textContent()).toBe(forks[0]!.agent);
    const text = await first.textContent();
    expect(text).toContain("idle");
    expect(text).toContain("finished");
    expect(text).toContain("done");
    expect(text).toContain("Switch added");
    expect(text).toContain("1,000 in / 200 out");
    expect(text).toContain("$0.0100");
    expect(await second.textContent()).toContain("Switch added with tests");
    // Side by side on a desktop: the columns share a row.
    const [a, b] = [await first.boundingBox(), await second.boundingBox()];
    expect(a!.y).toBe(b!.y);
    expect(b!.x).toBeGreaterThan(a!.x);
    await page.screenshot({ path: join(SHOTS, "race-desktop.png"), fullPage: true });

    // A fork's page shows the race it runs in, itself marked.
    await page.goto(`${dash.origin}/threads/${forks[1]!.thread}`);
    expect(await page.locator(".race-columns > article").count()).toBe(2);
    expect(
      await page.locator('.race-columns > article[aria-current="page"]').textContent(),
    ).toContain("(this thread)");

    // On a phone the columns stack.
    await mobile.goto(`${dash.origin}/threads/${thread}`);
    const stacked = mobile.locator(".race-columns > article");
    const [c, d] = [await stacked.nth(0).boundingBox(), await stacked.nth(1).boundingBox()];
    expect(d!.y).toBeGreaterThan(c!.y);
    await mobile.screenshot({ path: join(SHOTS, "race-phone.png"), fullPage: true });
  });

  it("marks the winner and the loser once one is promoted", async () => {
    const promoted = await runUwf(["thread", "race", "promote", forks[0]!.thread], {
      home: temp.home,
    });
    expect(promoted.code, promoted.stderr).toBe(0);
    await page.goto(`${dash.origin}/threads/${thread}`);
    expect(await page.locator(".race-columns > article.o-won h3").textContent()).toBe(
      forks[0]!.agent,
    );
    expect(await page.locator(".race-columns > article.o-lost").count()).toBe(1);
    expect(await page.locator(".race").textContent()).toContain(`promoted ${forks[0]!.thread}`);
  });
});
