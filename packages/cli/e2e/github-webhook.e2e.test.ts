import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { sign } from "@octokit/webhooks-methods";
import { runUwf, type TempHome, tempHome, writeScenario } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  http,
  mockAgent,
  type Reply,
  type RunningDashboard,
  startDashboard,
} from "./dashboard-fixture.js";

/**
 * `POST /hooks/github` on `uwf dashboard --host`: real GitHub payloads
 * (@octokit/webhooks-examples), signed as GitHub signs them, start the workflows that declare
 * their event, once, and run them in the server; a bad signature starts nothing; without a
 * secret the endpoint does not exist; every other page still needs the token.
 */
const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples") as {
  name: string;
  examples: { action?: string }[];
}[];
const SECRET = "It's a Secret to Everybody";

/** The first real payload of `name` with `action` (none: an event without actions). */
function example(name: string, action?: string): string {
  const found = examples.find((e) => e.name === name)?.examples.find((e) => e.action === action);
  if (found === undefined) throw new Error(`no example of ${name}.${action ?? ""}`);
  return JSON.stringify(found);
}

const TRIAGE = `name: gh-triage
description: Triage an issue as it is opened.
inputs:
  type: object
  properties:
    issue: { type: integer }
    repo: { type: string }
  required: [issue, repo]
on:
  github:
    events: [issues.opened]
    inputs:
      issue: "{{{event.issue.number}}}"
      repo: "{{{event.repository.full_name}}}"
    key: "{{{event.repository.full_name}}}#{{{event.issue.number}}}"
roles:
  triager:
    description: Labels the issue.
    frontmatter:
      type: object
      properties:
        $status: { const: labelled }
        label: { type: string }
      required: [$status, label]
  writer:
    description: Answers the reporter.
    frontmatter:
      type: object
      properties:
        $status: { const: answered }
      required: [$status]
graph:
  $START:
    new: { role: triager, prompt: "Label issue {{{inputs.issue}}} of {{{inputs.repo}}}." }
    resume: { role: triager, prompt: "Label it again." }
  triager:
    labelled: { role: writer, prompt: "Answer the reporter: it is a {{{label}}}." }
  writer:
    answered: { role: $END, prompt: "Triaged." }
`;

interface HookReply {
  event: string;
  delivery: string | null;
  threads: { workflow: string; thread: string; title: string; started: boolean }[];
  refused: unknown[];
}

describe("GitHub webhooks on uwf dashboard", () => {
  let temp: TempHome;
  let dash: RunningDashboard;
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });
  const threadCount = async () =>
    (JSON.parse((await uwf("thread", "list", "--format", "json")).stdout) as { total: number })
      .total;

  async function deliver(
    port: number,
    event: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<Reply> {
    return http(
      port,
      "POST",
      "/hooks/github",
      {
        host: `203.0.113.7:${port}`,
        "content-type": "application/json",
        "x-github-event": event,
        "user-agent": "GitHub-Hookshot/test",
        ...headers,
      },
      body,
    );
  }

  beforeAll(async () => {
    temp = tempHome();
    writeFileSync(join(temp.home, "gh-triage.yaml"), TRIAGE);
    const added = await uwf("workflow", "add", join(temp.home, "gh-triage.yaml"));
    expect(added.code, added.stderr).toBe(0);
    const scenario = writeScenario(temp.home, [
      { role: "triager", output: { $status: "labelled", label: "bug" } },
      { role: "writer", output: { $status: "answered" } },
    ]);
    const config = {
      defaultAgent: mockAgent(scenario),
      webhooks: { github: { secretEnv: "UWF_TEST_HOOK_SECRET" } },
    };
    writeFileSync(join(temp.home, "config.yaml"), JSON.stringify(config));
    dash = await startDashboard(temp.home, ["--host", "0.0.0.0"], {
      UWF_TEST_HOOK_SECRET: SECRET,
    });
  }, 60_000);

  afterAll(async () => {
    await dash?.stop();
    temp?.cleanup();
  });

  it("refuses a missing or wrong signature with 401 and starts nothing", async () => {
    const body = example("issues", "opened");
    const missing = await deliver(dash.port, "issues", body, { "x-github-delivery": "d-0" });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: "SIGNATURE_INVALID" } });
    const wrong = await deliver(dash.port, "issues", body, {
      "x-github-delivery": "d-0",
      "x-hub-signature-256": await sign("another secret", body),
    });
    expect(wrong.status).toBe(401);
    // Signed for another body: a changed payload is refused too.
    const changed = await deliver(dash.port, "issues", body.replace("opened", "closed"), {
      "x-hub-signature-256": await sign(SECRET, body),
    });
    expect(changed.status).toBe(401);
    const garbled = await deliver(dash.port, "issues", body, {
      "x-hub-signature-256": "sha256=zz",
    });
    expect(garbled.status).toBe(401);
    // Past GitHub's 25 MB cap: refused before it is read, let alone checked.
    const huge = await deliver(dash.port, "issues", body, {
      "x-hub-signature-256": await sign(SECRET, body),
      "content-length": String(26 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    expect(await threadCount()).toBe(0);
  });

  it("starts the workflow a signed delivery declares, runs it to its end, and finds it again on redelivery", async () => {
    const body = example("issues", "opened");
    const headers = { "x-github-delivery": "d-1", "x-hub-signature-256": await sign(SECRET, body) };
    const first = await deliver(dash.port, "issues", body, headers);
    expect(first.status, first.body).toBe(202);
    const doc = JSON.parse(first.body) as HookReply;
    expect(doc).toMatchObject({ event: "issues.opened", delivery: "d-1", refused: [] });
    expect(doc.threads).toHaveLength(1);
    const [started] = doc.threads;
    expect(started).toMatchObject({ workflow: "gh-triage", started: true });

    // It runs in the server: join waits for that run (its lease) and reports how it ended.
    const joined = await uwf("thread", "join", started!.thread, "--format", "json");
    expect(joined.code, joined.stderr).toBe(0);
    expect(JSON.parse(joined.stdout)).toMatchObject({ status: "completed", steps: 2 });
    const show = JSON.parse(
      (await uwf("thread", "show", started!.thread, "--format", "json")).stdout,
    );
    expect(JSON.stringify(show)).toContain(JSON.parse(body).repository.full_name);

    // GitHub redelivers (the same delivery, or the same issue again): the same thread, not run again.
    const again = await deliver(dash.port, "issues", body, headers);
    expect(again.status).toBe(202);
    expect((JSON.parse(again.body) as HookReply).threads).toEqual([{ ...started, started: false }]);
    const redelivered = await deliver(dash.port, "issues", body, {
      ...headers,
      "x-github-delivery": "d-2",
    });
    expect((JSON.parse(redelivered.body) as HookReply).threads[0]).toMatchObject({
      thread: started!.thread,
      started: false,
    });
    // The webhook's other content type: the payload as a form field, the form signed.
    const form = new URLSearchParams({ payload: body }).toString();
    const asForm = await deliver(dash.port, "issues", form, {
      "content-type": "application/x-www-form-urlencoded",
      "x-github-delivery": "d-form",
      "x-hub-signature-256": await sign(SECRET, form),
    });
    expect((JSON.parse(asForm.body) as HookReply).threads).toEqual([
      { ...started, started: false },
    ]);
    const after = JSON.parse(
      (await uwf("thread", "join", started!.thread, "--format", "json")).stdout,
    );
    expect(after).toMatchObject({ status: "completed", steps: 2 });
    const runs = readdirSync(join(temp.home, "logs"))
      .flatMap((file) => readFileSync(join(temp.home, "logs", file), "utf8").split("\n"))
      .filter((line) => line.includes('"event":"exec.end"') && line.includes(started!.thread));
    expect(runs).toHaveLength(1);
    // Each delivery is logged with what it did and how long it took to answer.
    const deliveries = readdirSync(join(temp.home, "logs"))
      .flatMap((file) => readFileSync(join(temp.home, "logs", file), "utf8").split("\n"))
      .filter((line) => line.includes('"event":"webhook.delivery"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      deliveries.map(({ delivery, started, found }) => ({ delivery, started, found })),
    ).toEqual([
      { delivery: "d-1", started: [started!.thread], found: [] },
      { delivery: "d-1", started: [], found: [started!.thread] },
      { delivery: "d-2", started: [], found: [started!.thread] },
      { delivery: "d-form", started: [], found: [started!.thread] },
    ]);
    expect(deliveries[0]).toMatchObject({
      githubEvent: "issues.opened",
      durationMs: expect.any(Number),
    });
    expect(await threadCount()).toBe(1);
  });

  it("answers an event no workflow declares, and GitHub's ping, with an empty list", async () => {
    for (const [name, action] of [["issues", "labeled"], ["ping"]] as const) {
      const body = example(name, action);
      const reply = await deliver(dash.port, name, body, {
        "x-github-delivery": `d-${name}`,
        "x-hub-signature-256": await sign(SECRET, body),
      });
      expect(reply.status).toBe(200);
      const event = action === undefined ? name : `${name}.${action}`;
      expect(JSON.parse(reply.body)).toMatchObject({ event, threads: [] });
    }
    expect(await threadCount()).toBe(1);
  });

  it("opens nothing else: every other page still needs the token, on any host name", async () => {
    for (const path of ["/threads", "/api/threads", "/hooks/github"]) {
      const reply = await http(dash.port, "GET", path, { host: `127.0.0.1:${dash.port}` });
      expect(reply.status, path).toBe(path === "/hooks/github" ? 405 : 401);
    }
    // Another name than this server's is refused even with the token.
    const rebound = await http(dash.port, "GET", "/threads", {
      host: `attacker.example:${dash.port}`,
      authorization: `Bearer ${dash.token}`,
    });
    expect(rebound.status).toBe(403);
    const ok = await http(dash.port, "GET", "/api/threads", {
      host: `127.0.0.1:${dash.port}`,
      authorization: `Bearer ${dash.token}`,
    });
    expect(ok.status).toBe(200);
  });

  it("says where deliveries go, and refuses to start when secretEnv names an unset variable", async () => {
    expect(dash.process.stderr()).toContain(
      `GitHub deliveries: POST http://127.0.0.1:${dash.port}/hooks/github`,
    );
    const other = tempHome();
    try {
      const config = { webhooks: { github: { secretEnv: "UWF_TEST_UNSET_SECRET" } } };
      writeFileSync(join(other.home, "config.yaml"), JSON.stringify(config));
      const started = await runUwf(["dashboard"], { home: other.home });
      expect(started.code).toBe(1);
      expect(started.stderr).toContain(
        "webhooks.github.secretEnv names UWF_TEST_UNSET_SECRET, which is not set",
      );
    } finally {
      other.cleanup();
    }
  });

  it("has no endpoint without a secret configured", async () => {
    const other = tempHome();
    try {
      const plain = await startDashboard(other.home);
      try {
        const body = example("issues", "opened");
        const reply = await deliver(plain.port, "issues", body, {
          "x-hub-signature-256": await sign(SECRET, body),
        });
        expect(reply.status).toBe(404);
        expect(JSON.parse(reply.body)).toMatchObject({ error: { code: "NOT_FOUND" } });
      } finally {
        await plain.stop();
      }
    } finally {
      other.cleanup();
    }
  });
});
