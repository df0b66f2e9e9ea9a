import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  runUwf,
  type StartedProcess,
  startUwf,
  type TempHome,
  tempHome,
  writeScenario,
} from "@united-workforce/test-utils";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mockAgent,
  type RunningDashboard,
  SHIP_FEATURE,
  startDashboard,
  threadThrough,
} from "./dashboard-fixture.js";

/**
 * `uwf dashboard` in a real browser: Debian's Chromium, driven by playwright-core (never a
 * downloaded browser). One browser for the file; a desktop and a phone page. Screenshots go to
 * UWF_DASHBOARD_SHOTS (default: <tmp>/uwf-dashboard-shots) to be looked at.
 */
const CHROMIUM = process.env.UWF_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = process.env.UWF_DASHBOARD_SHOTS ?? join(tmpdir(), "uwf-dashboard-shots");

describe("uwf dashboard in Chromium", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  let browser: Browser;
  let desktop: BrowserContext;
  let phone: BrowserContext;
  let page: Page;
  let mobile: Page;
  const threads: Record<"shipped" | "fork" | "asking" | "live", string> = {
    shipped: "",
    fork: "",
    asking: "",
    live: "",
  };
  let exec: StartedProcess | undefined;

  const shot = async (p: Page, name: string, fullPage = false) => {
    await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
  };
  const open = (p: Page, path: string) => p.goto(`${dash.origin}${path}`);

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    temp = tempHome();
    await runUwf(["workflow", "add", SHIP_FEATURE], { home: temp.home });
    threads.shipped = await threadThrough(
      temp.home,
      "shipped",
      "Add dark mode to the settings page",
      [
        {
          role: "planner",
          output: { $status: "ready", plan: "Add a theme switch; store it per user." },
        },
        {
          role: "developer",
          output: { $status: "done", summary: "Theme switch added" },
          body: "Added `theme` to the settings form and a CSS variable set.",
          usage: { inputTokens: 1200, outputTokens: 340, costUsd: 0.0123 },
        },
        {
          role: "reviewer",
          output: { $status: "rejected", reason: "No test for the stored choice." },
        },
        {
          role: "developer",
          output: { $status: "done", summary: "Test added" },
          usage: { inputTokens: 900, outputTokens: 120, costUsd: 0.0071 },
        },
        { role: "reviewer", output: { $status: "approved" } },
      ],
    );
    const steps = JSON.parse(
      (await runUwf(["step", "list", threads.shipped, "--format", "json"], { home: temp.home }))
        .stdout,
    ).steps;
    threads.fork = (
      await runUwf(["step", "fork", steps[1].hash], { home: temp.home })
    ).stdout.trim();
    threads.asking = await threadThrough(
      temp.home,
      "asking",
      "Make the app usable at night",
      [
        {
          role: "planner",
          output: {
            $status: "unclear",
            question: "Should dark mode follow the system setting, or be a toggle?",
          },
        },
        { role: "planner", output: { $status: "ready", plan: "Follow the system setting." } },
      ],
      1,
    );
    threads.live = await threadThrough(temp.home, "live", "Add keyboard shortcuts", [], 0);
    dash = await startDashboard(temp.home);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    page = await desktop.newPage();
    mobile = await phone.newPage();
    page.setDefaultTimeout(20_000);
    mobile.setDefaultTimeout(20_000);
    // The printed URL: its token becomes a cookie, the browser lands on the clean URL.
    await page.goto(dash.url);
    await mobile.goto(dash.url);
  }, 120_000);

  afterAll(async () => {
    exec?.child.kill("SIGKILL");
    await browser?.close();
    await dash?.stop();
    temp?.cleanup();
  });

  it("lists the threads with their status, filters them, and is keyboard-usable", async () => {
    expect(new URL(page.url()).pathname).toBe("/threads");
    expect(page.url()).not.toContain("token");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(4);
    const row = (id: string) => page.locator(`tr[data-thread="${id}"]`);
    expect(await row(threads.shipped).locator(".badge").textContent()).toBe("completed");
    expect(await row(threads.asking).locator(".badge").textContent()).toBe("suspended");
    expect(await row(threads.asking).textContent()).toContain("follow the system setting");
    expect(await row(threads.live).locator(".badge").textContent()).toBe("idle");
    // Three of its steps reported no cost: a lower bound.
    expect(await row(threads.shipped).locator('[data-field="cost"]').textContent()).toBe(
      "≥ $0.0194",
    );
    await shot(page, "threads-desktop");

    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");

    await page.getByLabel("Status").selectOption("suspended");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.locator("tbody tr").getAttribute("data-thread")).toBe(threads.asking);

    await page.getByRole("link", { name: "Clear" }).click();
    // The text filter searches titles: the live thread's is its task's first line.
    await page.getByLabel("Text").fill("keyboard shortcuts");
    await page.getByLabel("Text").press("Enter");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
    expect(await page.locator("tbody tr").getAttribute("data-thread")).toBe(threads.live);
    await page.getByLabel("Text").fill("no thread says this");
    await page.getByLabel("Text").press("Enter");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(0);
    await page.getByLabel("Text").fill(threads.live.slice(-6).toLowerCase());
    await page.getByLabel("Text").press("Enter");
    await expect.poll(() => page.locator("tbody tr").count()).toBe(1);

    await open(mobile, "/threads");
    await shot(mobile, "threads-phone");
    expect(await mobile.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  });

  it("draws a workflow's graph with its statuses, prompts, roles, schemas and versions", async () => {
    await open(page, "/threads");
    await page.getByRole("link", { name: "Workflows" }).click();
    await page.getByRole("link", { name: "ship-feature" }).click();
    const svg = page.locator("svg.graph");
    const labels = await svg.locator("text").allTextContents();
    for (const name of ["$START", "planner", "developer", "reviewer", "$END", "$SUSPEND"])
      expect(labels).toContain(name);
    for (const status of ["new", "resume", "ready", "unclear", "done", "approved", "rejected"])
      expect(labels).toContain(status);
    expect(await svg.locator('a[href="#edge-planner-unclear"] title').textContent()).toContain(
      "{{{question}}}",
    );
    await shot(page, "workflow-desktop");
    await svg.locator('a[href="#edge-reviewer-rejected"] text').click();
    const edgeRow = page.locator("#edge-reviewer-rejected");
    await expect
      .poll(() => page.evaluate("document.activeElement?.id"))
      .toBe("edge-reviewer-rejected");
    expect(await edgeRow.textContent()).toContain("Fix this: {{{reason}}}");
    const planner = page.locator("#role-planner");
    await planner.locator("summary").click();
    expect(await planner.locator("pre").textContent()).toContain('"question"');
    expect(await page.locator(".history li").count()).toBe(1);

    await open(mobile, "/workflows/ship-feature");
    await shot(mobile, "workflow-phone");
  });

  it("shows a thread's steps with usage, each step's output, body and prompt, and its forks", async () => {
    await open(page, `/threads/${threads.shipped}`);
    const steps = page.locator("#timeline > li");
    expect(await steps.count()).toBe(5);
    const second = await steps.nth(1).textContent();
    expect(second).toContain("developer");
    expect(second).toContain("1,200 in / 340 out");
    expect(second).toContain("$0.0123");
    expect(await steps.nth(0).locator(".step-meta").textContent()).toContain("unknown");
    // Three of its steps reported no cost: the thread's sum is a lower bound, and says so.
    expect(await page.locator("dt:text-is('Usage') + dd").textContent()).toContain(
      "≥ $0.0194 (3 steps unknown)",
    );
    const tree = page.locator(".tree");
    expect(await tree.locator(`a[href="/threads/${threads.fork}"]`).count()).toBe(1);
    expect(await tree.textContent()).toContain("forked at step 2 (developer)");
    // Each member is named by its title; a fork's is its thread's, marked as a fork.
    expect(await tree.textContent()).toMatch(/ \(fork\) /);
    // Key output fields show inline; a body is there to expand.
    expect(await steps.nth(2).locator("dl.output").textContent()).toContain(
      "No test for the stored choice.",
    );
    await steps.nth(1).locator("details.body summary").click();
    expect(await steps.nth(1).locator("details.body pre").textContent()).toContain(
      "Added `theme` to the settings form",
    );
    // The route drawn on the graph: the review loop taken twice, the thread at $END.
    const route = page.locator("#route-h ~ .graph-wrap svg");
    expect(
      await route.locator('a.edge[href$="#edge-developer-done"]').getAttribute("data-taken"),
    ).toBe("2");
    expect(await route.locator('[aria-current="step"] title').textContent()).toContain("$END");
    await shot(page, "thread-desktop", true);

    await steps.nth(1).locator(".step-head a").click();
    expect(await page.locator("h1").textContent()).toContain("developer");
    expect(await page.locator('section[aria-labelledby="body-h"] pre').textContent()).toContain(
      "Added `theme` to the settings form",
    );
    expect(await page.locator("#prompt").textContent()).toContain(
      "Implement this plan: Add a theme switch; store it per user.",
    );
    await shot(page, "step-desktop");

    await open(page, `/threads/${threads.fork}`);
    // The fork's page shows the same family, itself under the thread it was forked from.
    const nested = page.locator(`.tree a[href="/threads/${threads.shipped}"] ~ ul`);
    expect(await nested.textContent()).toContain("(this thread)");

    await open(mobile, `/threads/${threads.shipped}`);
    await shot(mobile, "thread-phone");
  });

  it("shows a running exec's role and output live, and the list follows its status", async () => {
    const gate = join(temp.home, "gate");
    const scenario = writeScenario(
      temp.home,
      [
        {
          role: "planner",
          stderr: "planner: reading the task",
          output: { $status: "ready", plan: "Bind ? to the shortcut list." },
        },
        {
          role: "developer",
          wait_for: gate,
          output: { $status: "done", summary: "Shortcuts added" },
        },
        { role: "reviewer", output: { $status: "approved" } },
      ],
      "live-run.yaml",
    );
    await open(page, `/threads/${threads.live}`);
    await open(mobile, "/threads");
    await page.locator("#conn.on").waitFor();
    await mobile.locator("#conn.on").waitFor();

    exec = startUwf(["thread", "exec", threads.live, "-c", "3", "--agent", mockAgent(scenario)], {
      home: temp.home,
    });
    await page.locator("#live-output", { hasText: "planner: reading the task" }).waitFor();
    await page.locator("#live-role", { hasText: "developer" }).waitFor();
    await page.locator("h1 .badge", { hasText: "running" }).waitFor();
    await page.locator("#timeline > li", { hasText: "planner" }).waitFor();
    // A page opened while the step runs says which role runs, by which agent, for how long.
    const fresh = await desktop.newPage();
    await fresh.goto(`${dash.origin}/threads/${threads.live}`);
    expect(await fresh.locator('[data-field="running-role"]').textContent()).toBe("developer");
    expect(await fresh.locator('[data-field="running-agent"]').textContent()).toContain("uwf-mock");
    await fresh.locator(".elapsed", { hasText: "running for" }).waitFor();
    await fresh.close();
    const listed = mobile.locator(`tr[data-thread="${threads.live}"]`);
    await listed.locator(".badge", { hasText: "running" }).waitFor();
    await shot(page, "live-desktop");
    await shot(mobile, "live-list-phone");

    writeFileSync(gate, "");
    await page.locator("h1 .badge", { hasText: "completed" }).waitFor();
    await expect.poll(() => page.locator("#timeline > li").count()).toBe(3);
    await listed.locator(".badge", { hasText: "completed" }).waitFor();
    expect(await listed.locator('[data-field="steps"]').textContent()).toBe("3");
    expect((await exec.done).code).toBe(0);
  });

  it("answers a suspended thread's question from its page, and the thread resumes", async () => {
    await open(mobile, `/threads/${threads.asking}`);
    await shot(mobile, "answer-phone");
    await open(page, `/threads/${threads.asking}`);
    expect(await page.locator("#question").textContent()).toBe(
      "Should dark mode follow the system setting, or be a toggle?",
    );
    expect(await page.locator('#ask-h [data-field="wait-kind"]').textContent()).toBe("question");
    // The page names the role an answer resumes, as `thread show` does.
    const shown = await runUwf(["thread", "show", threads.asking, "--format", "json"], {
      home: temp.home,
    });
    const { nextRole } = JSON.parse(shown.stdout);
    expect(nextRole).toEqual(expect.any(String));
    expect(await page.locator("dd", { hasText: "next:" }).locator("b").textContent()).toBe(
      nextRole,
    );
    await page.getByLabel("Your answer").fill("Follow the system setting; no toggle.");
    await shot(page, "answer-desktop");
    await page.getByLabel("Your answer").press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Answer and resume");
    await page.keyboard.press("Enter");
    await page.waitForURL(/answered=1/).catch(async (e) => {
      throw new Error(`${e}\n${page.url()}\n${await page.content()}\n${dash.process.stderr()}`);
    });
    expect(await page.locator(".notice").textContent()).toContain("Your answer was sent");
    await expect.poll(() => page.locator("#timeline > li").count(), { timeout: 20_000 }).toBe(2);
    await page.locator("h1 .badge", { hasText: "idle" }).waitFor();
    expect(await page.locator("#question").count()).toBe(0);
    const prompt = await runUwf(
      [
        "step",
        "read",
        JSON.parse(
          (
            await runUwf(["thread", "show", threads.asking, "--format", "json"], {
              home: temp.home,
            })
          ).stdout,
        ).head,
        "--prompt",
      ],
      { home: temp.home },
    );
    expect(prompt.stdout).toContain("Follow the system setting; no toggle.");
  });
});
