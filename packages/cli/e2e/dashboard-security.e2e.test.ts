import { runUwf, sleep, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  http,
  type RunningDashboard,
  SHIP_FEATURE,
  startDashboard,
  threadThrough,
} from "./dashboard-fixture.js";

// What a web page on another site, a rebound DNS name or a local process without the token
// can do to `uwf dashboard`: nothing. Plain HTTP requests, so every header is the test's choice.
describe("uwf dashboard refuses what is not its own page", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  let asking: string;
  let host: string;
  let cookie: string;

  beforeAll(async () => {
    temp = tempHome();
    await runUwf(["workflow", "add", SHIP_FEATURE], { home: temp.home });
    asking = await threadThrough(
      temp.home,
      "asking",
      "Add dark mode",
      [
        { role: "planner", output: { $status: "unclear", question: "Toggle or system setting?" } },
        { role: "planner", output: { $status: "ready", plan: "Follow the system setting." } },
      ],
      1,
    );
    dash = await startDashboard(temp.home);
    host = `127.0.0.1:${dash.port}`;
    cookie = `uwf_dashboard_${dash.port}=${dash.token}`;
  });
  afterAll(async () => {
    await dash?.stop();
    temp.cleanup();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    http(dash.port, "GET", path, { host, cookie, ...headers });

  it("trades the printed URL's token for an HttpOnly SameSite=Strict cookie and the clean URL", async () => {
    const login = await http(dash.port, "GET", `/threads?status=suspended&token=${dash.token}`, {
      host,
    });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe("/threads?status=suspended");
    const set = String(login.headers["set-cookie"]);
    expect(set).toContain(`uwf_dashboard_${dash.port}=${dash.token}`);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Strict");
    const page = await get("/threads?status=suspended");
    expect(page.status).toBe(200);
    expect(page.body).toContain(asking);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
  });

  it("refuses a request without the token, or with a wrong one", async () => {
    expect((await http(dash.port, "GET", "/threads", { host })).status).toBe(401);
    expect((await http(dash.port, "GET", "/api/threads", { host })).status).toBe(401);
    expect((await http(dash.port, "GET", "/?token=wrong", { host })).status).toBe(401);
    const wrongCookie = await http(dash.port, "GET", "/threads", {
      host,
      cookie: `uwf_dashboard_${dash.port}=${dash.token.slice(1)}x`,
    });
    expect(wrongCookie.status).toBe(401);
    expect(wrongCookie.body).not.toContain(asking);
    const bearer = await http(dash.port, "GET", "/api/threads", {
      host,
      authorization: `Bearer ${dash.token}`,
    });
    expect(bearer.status).toBe(200);
  });

  it("refuses another Host header (DNS rebinding) and accepts localhost", async () => {
    const rebound = await get("/threads", { host: `evil.example:${dash.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(asking);
    expect((await get("/threads", { host: `127.0.0.1:${dash.port + 1}` })).status).toBe(403);
    expect((await get("/threads", { host: `localhost:${dash.port}` })).status).toBe(200);
  });

  it("refuses a cross-origin request even with the cookie", async () => {
    expect((await get("/api/threads", { origin: "http://evil.example" })).status).toBe(403);
    expect((await get("/api/threads", { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await get("/api/threads", { origin: dash.origin })).status).toBe(200);
  });

  it("answers a thread only with the token, a same-origin Origin and the CSRF token", async () => {
    const page = await get(`/threads/${asking}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(csrf).toBeTruthy();
    expect(page.body).toContain("Toggle or system setting?");
    const post = (headers: Record<string, string>, form: string) =>
      http(
        dash.port,
        "POST",
        `/threads/${asking}/answer`,
        { host, "content-type": "application/x-www-form-urlencoded", ...headers },
        form,
      );
    const answer = `answer=Follow+the+system&csrf=${encodeURIComponent(csrf!)}`;
    expect((await post({ origin: dash.origin }, answer)).status).toBe(401);
    expect((await post({ cookie }, answer)).status).toBe(403);
    expect((await post({ cookie, origin: "http://evil.example" }, answer)).status).toBe(403);
    expect((await post({ cookie, origin: dash.origin }, "answer=x")).status).toBe(403);
    expect((await post({ cookie, origin: dash.origin }, "answer=x&csrf=nope")).status).toBe(403);
    const show = async () =>
      JSON.parse(
        (await runUwf(["thread", "show", asking, "--format", "json"], { home: temp.home })).stdout,
      );
    expect((await show()).status).toBe("suspended");

    const accepted = await post({ cookie, origin: dash.origin }, answer);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.location).toBe(`/threads/${asking}?answered=1`);
    let doc = await show();
    for (const deadline = Date.now() + 20_000; doc.steps < 2 && Date.now() < deadline; ) {
      await sleep(100);
      doc = await show();
    }
    expect(doc.steps).toBe(2);
    expect(doc.currentRole).toBe("planner");
    const prompt = await runUwf(["step", "read", doc.head, "--prompt"], { home: temp.home });
    expect(prompt.stdout).toContain("Follow the system");

    // Answered once: a second answer is refused, the thread is no longer waiting.
    const again = await post({ cookie, origin: dash.origin }, answer);
    expect(again.status).toBe(409);
    expect(again.body).toContain("not waiting for an answer");
  });

  it("shows a fork made while it runs in the thread's tree (the log says a thread was made)", async () => {
    const tree = async () =>
      JSON.parse((await get(`/api/threads/${asking}`)).body).tree.threads.map(
        (t: { thread: string }) => t.thread,
      );
    expect(await tree()).toEqual([asking]);
    const steps = JSON.parse(
      (await runUwf(["step", "list", asking, "--format", "json"], { home: temp.home })).stdout,
    ).steps;
    const fork = (await runUwf(["step", "fork", steps[0].hash], { home: temp.home })).stdout.trim();
    let seen = await tree();
    for (const deadline = Date.now() + 20_000; !seen.includes(fork) && Date.now() < deadline; ) {
      await sleep(100);
      seen = await tree();
    }
    expect(seen).toContain(fork);
  });

  it("says a port in use is taken, with what to do", async () => {
    const second = await runUwf(["dashboard", "--port", String(dash.port)], { home: temp.home });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`port ${dash.port} is in use`);
  });
});

describe("stopping uwf dashboard", () => {
  it("Ctrl-C ends it with exit 130 and says how many requests it served", async () => {
    const temp = tempHome();
    try {
      const dash = await startDashboard(temp.home);
      const reply = await http(dash.port, "GET", "/workflows", {
        host: `127.0.0.1:${dash.port}`,
        authorization: `Bearer ${dash.token}`,
      });
      expect(reply.body).toContain("No workflow is registered");
      expect(await dash.stop()).toBe(130);
      expect(dash.process.stdout()).toContain("stopped after 1 requests");
    } finally {
      temp.cleanup();
    }
  });
});
