import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  REPO_ROOT,
  runUwf,
  type TempHome,
  tempHome,
  UWF_MOCK_BIN,
  writeScenario,
} from "@united-workforce/test-utils";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, mockAgent, type RunningDashboard, startDashboard } from "./dashboard-fixture.js";

/**
 * `uwf dashboard` answering what threads wait for, in Chromium: a human role's form (its
 * statuses and fields, checked as `uwf thread answer` checks them) through to the next step, a
 * workflow page for threads started from a file, and a fan-out's children on its parent's page.
 */
const CHROMIUM = process.env.UWF_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS = process.env.UWF_DASHBOARD_SHOTS ?? join(tmpdir(), "uwf-dashboard-shots");
const EXAMPLES = join(REPO_ROOT, "examples");

describe("uwf dashboard answers each kind of wait", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  let gate = "";
  let review = "";
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });
  const open = (path: string) => page.goto(`${dash.origin}${path}`);
  const shot = (name: string) =>
    page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const start = async (file: string, prompt: string) =>
    (await uwf("thread", "start", join(EXAMPLES, file), "-p", prompt)).stdout.trim();

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    temp = tempHome();
    // A writer drafts, a person approves or sends it back (the approver's entry keeps the
    // mock's step numbers in line: a person answers it), the writer drafts again.
    const drafts = writeScenario(
      temp.home,
      [
        {
          role: "writer",
          output: { $status: "drafted", title: "uwf 2.0", draft: "It is out." },
        },
        { role: "approver", output: { $status: "approved" } },
        {
          role: "writer",
          output: {
            $status: "drafted",
            title: "uwf 2.0",
            draft: "It is out. Read the migration guide.",
          },
        },
      ],
      "drafts.yaml",
    );
    gate = await start("approval-gate.yaml", "Announce the 2.0 release");
    const drafted = await uwf("thread", "exec", gate, "--agent", mockAgent(drafts));
    expect(drafted.code, drafted.stderr).toBe(0);

    review = await start("fan-out-review.yaml", "Review the change");
    const reviewer = `${process.execPath} ${UWF_MOCK_BIN} --scenario ${join(EXAMPLES, "scenarios", "fan-out-review.yaml")}`;
    const reviewed = await uwf("thread", "exec", review, "-c", "5", "--agent", reviewer);
    expect(reviewed.code, reviewed.stderr).toBe(0);

    dash = await startDashboard(temp.home);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(dash.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.stop();
    temp?.cleanup();
  });

  it("lists a thread waiting for a person first, labelled as a human role", async () => {
    await open("/threads");
    const waiting = page.locator(".waiting-list li");
    expect(await waiting.count()).toBe(1);
    expect(await waiting.getAttribute("data-waiting")).toBe(gate);
    expect(await waiting.locator(".badge").textContent()).toBe("waiting for you");
    await shot("threads-waiting-desktop");
  });

  it("answers a human gate from its form, with thread answer's rules, through to the next step", async () => {
    // The list, open meanwhile, follows: the gate leaves "waiting for a person" once it ends.
    const list = await page.context().newPage();
    await list.goto(`${dash.origin}/threads`);
    await list.locator("#conn.on").waitFor();
    await open(`/threads/${gate}`);
    expect(await page.locator("#ask-h").textContent()).toContain(
      "approver is answered by a person",
    );
    expect(await page.locator("#question").textContent()).toContain("# uwf 2.0");
    // Its statuses are choices; only the chosen one's fields show.
    const reason = page.getByLabel(/^reason/);
    const note = page.getByLabel(/^note/);
    expect(await note.isVisible()).toBe(true);
    expect(await reason.isVisible()).toBe(false);
    await page.getByLabel("rejected", { exact: true }).check();
    expect(await reason.isVisible()).toBe(true);
    expect(await note.isVisible()).toBe(false);

    // Sent back without its required reason: refused as `thread answer` refuses it, nothing
    // written, the choice kept.
    await page.getByRole("button", { name: "Send the answer" }).click();
    await page.locator("#answer-error").waitFor();
    expect(await page.locator("#answer-error").textContent()).toContain(
      'status "rejected" needs field "reason"',
    );
    expect(await page.getByLabel("rejected", { exact: true }).isChecked()).toBe(true);
    await shot("human-gate-desktop");
    const before = JSON.parse((await uwf("thread", "show", gate, "--format", "json")).stdout);
    expect(before.steps).toBe(1);

    await page.getByLabel(/^reason/).fill("Mention the migration guide.");
    await page.getByRole("button", { name: "Send the answer" }).click();
    await page.waitForURL(/answered=next/);
    // The answer is the approver's step; the writer ran next and the gate waits again.
    await expect.poll(() => page.locator("#timeline > li").count()).toBe(3);
    await page.locator("h1 .badge", { hasText: "suspended" }).waitFor();
    const steps = page.locator("#timeline > li");
    expect(await steps.nth(1).textContent()).toContain("rejected");
    expect(await steps.nth(1).locator("dl.output").textContent()).toContain(
      "Mention the migration guide.",
    );
    expect(await steps.nth(1).locator(".step-meta").textContent()).toContain("human");
    expect(await steps.nth(2).locator("dl.output").textContent()).toContain(
      "Read the migration guide.",
    );
    // The route: drafted → approver twice, rejected → writer once; the thread is at approver.
    const graph = page.locator("#route-h ~ .graph-wrap svg");
    expect(await graph.locator(".edge.taken").count()).toBe(3);
    expect(
      await graph.locator('a.edge[href$="#edge-writer-drafted"]').getAttribute("data-taken"),
    ).toBe("2");
    expect(
      await graph.locator('a.edge[href$="#edge-approver-rejected"]').getAttribute("data-taken"),
    ).toBe("1");
    expect(await graph.locator('[aria-current="step"]').getAttribute("aria-label")).toContain(
      "role approver",
    );

    // Approved: the thread ends; nothing runs next.
    await page.getByLabel("approved", { exact: true }).check();
    await page.getByLabel(/^note/).fill("Ship it.");
    await page.getByRole("button", { name: "Send the answer" }).click();
    await page.waitForURL(/answered=human/);
    await page.locator("h1 .badge", { hasText: "completed" }).waitFor();
    expect(await page.locator("#ask-h").count()).toBe(0);
    const shown = JSON.parse((await uwf("thread", "show", gate, "--format", "json")).stdout);
    expect(shown.status).toBe("completed");
    expect(shown.steps).toBe(4);
    await list.locator(`li[data-waiting="${gate}"]`).waitFor({ state: "hidden" });
    await list.close();
  });

  it("shows the workflow of a thread started from a file", async () => {
    await open(`/threads/${gate}`);
    await page.locator("dt:text-is('Workflow') + dd a").click();
    await page.waitForURL(/\/workflows\/hash\//);
    expect(await page.locator("h1").textContent()).toContain("approval-gate");
    expect(await page.locator(".notice").textContent()).toContain("not registered");
    expect(await page.locator("svg.graph text").allTextContents()).toContain("approver");
  });

  it("lists a fan-out's children on its parent's page, each linking back", async () => {
    await open(`/threads/${review}`);
    const children = page.locator("table.children tbody tr");
    expect(await children.count()).toBe(3);
    await shot("fan-out-parent-desktop");
    expect(await children.locator(".badge").allTextContents()).toEqual([
      "completed",
      "completed",
      "completed",
    ]);
    expect(await children.locator("td.num:first-child").allTextContents()).toEqual(["0", "1", "2"]);
    // The join's output inline: how many reviews came back.
    expect(await page.locator("#timeline").textContent()).toContain("completed3");
    const child = await children.first().getAttribute("data-thread");
    await children.first().locator("a").first().click();
    await page.waitForURL(new RegExp(`/threads/${child}$`));
    expect(await page.locator("dt:text-is('Fan-out of') + dd a").getAttribute("href")).toBe(
      `/threads/${review}`,
    );
    // A child's workflow has a page too.
    await page.locator("dt:text-is('Workflow') + dd a").click();
    await page.waitForURL(/\/workflows\/hash\//);
    expect(await page.locator("h1").textContent()).not.toContain("Not found");
    expect(await page.locator("svg.graph text").allTextContents()).toContain("reviewer");
  });
});

describe("uwf dashboard's answers over HTTP", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home });

  beforeAll(async () => {
    temp = tempHome();
    dash = await startDashboard(temp.home);
  }, 60_000);

  afterAll(async () => {
    await dash?.stop();
    temp?.cleanup();
  });

  const request = (
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ) =>
    http(
      dash.port,
      method,
      path,
      {
        host: `127.0.0.1:${dash.port}`,
        cookie: `uwf_dashboard_${dash.port}=${dash.token}`,
        ...headers,
      },
      body,
    );

  it("answers a human role from JSON with thread answer's rules, refusing what does not fit", async () => {
    const gate = (
      await uwf("thread", "start", join(EXAMPLES, "approval-gate.yaml"), "-p", "Announce 2.0")
    ).stdout.trim();
    const drafts = writeScenario(
      temp.home,
      [{ role: "writer", output: { $status: "drafted", title: "2.0", draft: "Out." } }],
      "http-drafts.yaml",
    );
    expect((await uwf("thread", "exec", gate, "--agent", mockAgent(drafts))).code).toBe(0);
    const page = await request("GET", `/threads/${gate}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const post = (answer: unknown) =>
      request(
        "POST",
        `/api/threads/${gate}/answer`,
        { origin: dash.origin, "x-uwf-csrf": csrf, "content-type": "application/json" },
        JSON.stringify(answer),
      );
    const refused = await post({ status: "rejected", fields: {} });
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body).error).toMatchObject({ code: "OUTPUT_INVALID" });
    expect(JSON.parse(refused.body).error.message).toContain('needs field "reason"');
    const unknown = await post({ status: "maybe" });
    expect(JSON.parse(unknown.body).error.message).toContain("not one of role");

    const accepted = await post({ status: "approved", fields: { note: "Ship it." } });
    expect(accepted.status, accepted.body).toBe(200);
    expect(JSON.parse(accepted.body)).toMatchObject({ thread: gate, status: "completed" });
    const shown = JSON.parse((await uwf("step", "list", gate, "--format", "json")).stdout);
    expect(shown.steps.at(-1)).toMatchObject({
      role: "approver",
      status: "approved",
      agent: "human",
    });
  });

  it("serves the workflow page of an imported thread by its hash", async () => {
    const other = tempHome();
    try {
      const thread = (
        await runUwf(["thread", "start", join(EXAMPLES, "hello.yaml"), "-p", "Say hello"], {
          home: other.home,
        })
      ).stdout.trim();
      const bundle = join(other.home, "hello.jsonl");
      expect(
        (await runUwf(["thread", "export", thread, "-o", bundle], { home: other.home })).code,
      ).toBe(0);
      expect((await uwf("thread", "import", bundle)).code).toBe(0);
      const pointer = JSON.parse((await uwf("thread", "show", thread, "--format", "json")).stdout);
      const threadPage = await request("GET", `/threads/${thread}`);
      expect(threadPage.body).toContain(`href="/workflows/hash/${pointer.workflowHash}"`);
      const workflow = await request("GET", `/workflows/hash/${pointer.workflowHash}`);
      expect(workflow.status).toBe(200);
      expect(workflow.body).toContain("not registered");
      const api = await request("GET", `/api/workflows/hash/${pointer.workflowHash}`);
      expect(JSON.parse(api.body)).toMatchObject({ name: "hello", registered: false });
      expect((await request("GET", "/workflows/hash/0000000000000")).status).toBe(404);
    } finally {
      other.cleanup();
    }
  });
});
