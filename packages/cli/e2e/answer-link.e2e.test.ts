import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, type RunningDashboard, startDashboard } from "./dashboard-fixture.js";

/**
 * The signed single-use link a notification carries (`dashboard.publicUrl`): followed in
 * Chromium from the document a real `thread exec` handed its notifier, it opens the thread's
 * answer form without the dashboard's token, answers it once, and is refused after.
 */
const CHROMIUM = process.env.UWF_CHROMIUM ?? "/usr/bin/chromium";
// The public name: Chromium resolves it to 127.0.0.1, as a tunnel would forward it.
const PUBLIC_NAME = "uwf.test";

const ASK = `name: ask
description: A person approves.
roles:
  approver:
    description: A person who approves.
    agent: human
    frontmatter:
      type: object
      properties:
        $status: { enum: [approved, rejected] }
        note: { type: string }
      required: [$status]
graph:
  $START:
    new: { role: approver, prompt: "Approve the release?" }
    resume: { role: approver, prompt: "Approve the release now?" }
  approver:
    approved: { role: $END, prompt: "Approved: {{{note}}}" }
    rejected: { role: $END, prompt: "Rejected." }
`;

// Appends what it reads on stdin to the file it is given: one notification per line.
const RECORDER = `const { appendFileSync } = require("node:fs");
let text = "";
process.stdin.on("data", (chunk) => { text += chunk; });
process.stdin.on("end", () => appendFileSync(process.argv[2], text));
`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("an answer link in a notification", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  let browser: Browser;
  let page: Page;
  let thread = "";
  let link = "";
  let text = "";
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
    temp = tempHome();
    const port = await freePort();
    const recorder = join(temp.home, "recorder.cjs");
    const received = join(temp.home, "notifications.jsonl");
    writeFileSync(recorder, RECORDER);
    writeFileSync(join(temp.home, "ask.yaml"), ASK);
    const config = {
      notify: [{ on: ["waiting"], command: [process.execPath, recorder, received] }],
      dashboard: { publicUrl: `http://${PUBLIC_NAME}:${port}` },
    };
    writeFileSync(join(temp.home, "config.yaml"), JSON.stringify(config));

    const start = [
      "thread",
      "start",
      join(temp.home, "ask.yaml"),
      "-p",
      "go",
      "--title",
      "Release",
    ];
    thread = (await uwf(...start)).stdout.trim();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code, exec.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(received, "utf8").trim()) as {
      link: string;
      thread: string;
    };
    expect(doc.thread).toBe(thread);
    link = doc.link;
    const { notificationText } = await import("../src/notify/notifier.js");
    text = notificationText(doc as Parameters<typeof notificationText>[0]);

    dash = await startDashboard(temp.home, ["--port", String(port)]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`],
    });
    page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(20_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dash?.stop();
    temp?.cleanup();
  });

  it("is in the document and the chat text, at the public URL, and its key is private", () => {
    expect(link).toMatch(
      new RegExp(`^http://${PUBLIC_NAME}:${dash.port}/answer/1\\.${thread}\\.[0-9A-Z]{13}\\.`),
    );
    expect(text).toContain(`\nAnswer: ${link}`);
    const key = join(temp.home, "dashboard-link.key");
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(dash.process.stderr()).not.toContain(readFileSync(key, "utf8").trim());
  });

  it("opens the thread's answer form without the token, and nothing else", async () => {
    const response = await page.goto(link);
    expect(response?.status()).toBe(200);
    expect(await page.locator("#ask-h").textContent()).toContain(
      "approver is answered by a person",
    );
    expect(await page.locator("#question").textContent()).toContain("Approve the release?");
    // The page's stylesheet loads; the rest of the dashboard needs the token.
    const status = (path: string) => page.evaluate(async (p) => (await fetch(p)).status, path);
    expect(await status("/assets/style.css")).toBe(200);
    for (const path of ["/threads", `/api/threads/${thread}`, "/events?thread=*", "/assets/app.js"])
      expect(await status(path)).toBe(401);

    // Its answer needs the page's own CSRF token and origin, as the dashboard's forms do.
    const origin = `http://${PUBLIC_NAME}:${dash.port}`;
    const form = {
      host: `${PUBLIC_NAME}:${dash.port}`,
      "content-type": "application/x-www-form-urlencoded",
    };
    const path = new URL(link).pathname;
    for (const headers of [
      { ...form, origin },
      { ...form, origin: "https://attacker.example" },
    ]) {
      const csrf =
        headers.origin === origin ? "nope" : await page.locator("input[name=csrf]").inputValue();
      const post = await http(dash.port, "POST", path, headers, `status=approved&csrf=${csrf}`);
      expect(post.status).toBe(403);
    }
    const show = await uwf("thread", "show", thread, "--format", "json");
    expect(JSON.parse(show.stdout)).toMatchObject({ status: "suspended" });
  });

  it("answers once through the form, then says it was used", async () => {
    await page.getByLabel("approved", { exact: true }).check();
    await page.locator("#f-approved-note").fill("ship it");
    await page.getByRole("button", { name: "Send the answer" }).click();
    await page.locator("h1", { hasText: "Answer sent" }).waitFor();
    const show = await uwf("thread", "show", thread, "--format", "json");
    expect(JSON.parse(show.stdout)).toMatchObject({ status: "completed" });
    // The step records who answered: whoever held the link.
    const step = (await uwf("step", "list", thread, "--format", "json")).stdout;
    const hash = (JSON.parse(step) as { steps: { hash: string }[] }).steps[0]!.hash;
    const node = JSON.parse((await uwf("cas", "get", hash, "--format", "json")).stdout) as {
      payload: { detail: string };
    };
    const detail = JSON.parse(
      (await uwf("cas", "get", node.payload.detail, "--format", "json")).stdout,
    ) as { payload: { answeredBy: string } };
    expect(detail.payload.answeredBy).toBe("answer link");

    const again = await page.goto(link);
    expect(again?.status()).toBe(403);
    expect(await page.locator(".error").textContent()).toContain("This link was used");
  });

  it("refuses a changed link, and one sent to another host", async () => {
    const cut = link.lastIndexOf(".") + 1;
    const changed = `${link.slice(0, cut)}${link[cut] === "A" ? "B" : "A"}${link.slice(cut + 1)}`;
    const forged = await page.goto(changed);
    expect(forged?.status()).toBe(403);
    expect(await page.locator(".error").textContent()).toContain("This link is not valid");

    const path = new URL(link).pathname;
    const rebound = await http(dash.port, "GET", path, { host: `attacker.example:${dash.port}` });
    expect(rebound.status).toBe(403);
  });
});
