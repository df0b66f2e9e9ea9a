import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { REPO_ROOT, runUwf, type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// A workflow whose one role is a person: exec waits for them, their answer completes it.
const ASK = `name: ask
description: A person approves.
roles:
  approver:
    description: A person who approves.
    agent: human
    frontmatter:
      type: object
      properties:
        $status: { const: approved }
      required: [$status]
graph:
  $START:
    new: { role: approver, prompt: "Approve the release?" }
    resume: { role: approver, prompt: "Approve the release now?" }
  approver:
    approved: { role: $END, prompt: "Approved." }
`;

// The example notifier (docs/config.md): appends each notification to the file it is given.
const RECORDER = join(REPO_ROOT, "examples", "notify", "append-to-file.mjs");

interface Received {
  text: string;
  event: string;
  thread: string;
  title: string | null;
  workflow: string | null;
  role: string | null;
  reason: string | null;
  kind: string | null;
  at: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

describe("notify: in config.yaml", () => {
  let temp: TempHome;
  let hook: Server;
  const posts: Received[] = [];
  const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });

  beforeEach(async () => {
    temp = tempHome();
    posts.length = 0;
    hook = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      request.on("end", () => {
        posts.push(JSON.parse(body) as Received);
        response.end("ok");
      });
    });
  });
  afterEach(async () => {
    await new Promise((resolve) => hook.close(resolve));
    temp.cleanup();
  });

  it("runs the command and posts the webhook when a thread waits and completes; a failing notifier changes nothing", async () => {
    const port = await listen(hook);
    // A port nothing listens on: the connection is refused.
    const closed = createServer();
    const refusedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));

    const received = join(temp.home, "notifications.jsonl");
    writeFileSync(join(temp.home, "ask.yaml"), ASK);
    const config = {
      notify: [
        { on: ["waiting", "completed"], command: [process.execPath, RECORDER, received] },
        { on: ["waiting", "completed"], webhook: `http://127.0.0.1:${port}/hook/secret` },
        { on: ["waiting", "completed"], command: [process.execPath, "-e", "process.exit(3)"] },
        { on: ["waiting"], webhook: `http://127.0.0.1:${refusedPort}/hook`, timeoutSeconds: 5 },
        { on: ["failed", "budget"], command: [process.execPath, RECORDER, received] },
      ],
    };
    writeFileSync(join(temp.home, "config.yaml"), JSON.stringify(config));

    const thread = (
      await uwf(
        "thread",
        "start",
        join(temp.home, "ask.yaml"),
        "-p",
        "go",
        "--title",
        "Release 2.0",
      )
    ).stdout.trim();
    const exec = await uwf("thread", "exec", thread);
    expect(exec.code).toBe(0);
    const answer = await uwf("thread", "answer", thread, "--status", "approved");
    expect(answer.code).toBe(0);

    const lines = readFileSync(received, "utf8").trim().split("\n");
    const docs = lines.map((line) => JSON.parse(line) as Received);
    expect(docs).toEqual([
      {
        event: "waiting",
        thread,
        title: "Release 2.0",
        workflow: "ask",
        role: "approver",
        reason: expect.stringContaining("Approve the release?"),
        kind: "human",
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
      {
        event: "completed",
        thread,
        title: "Release 2.0",
        workflow: "ask",
        role: "approver",
        reason: "Approved.",
        kind: null,
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      },
    ]);
    expect(posts).toEqual(docs.map((doc) => ({ ...doc, text: expect.any(String) })));
    expect(posts[0]?.text).toBe(
      `uwf: thread "Release 2.0" (${thread}) [ask] waits for an answer at approver: ${docs[0]?.reason}`,
    );

    // The failures are logged, the webhook by its origin only.
    const failed = readdirSync(join(temp.home, "logs"))
      .flatMap((file) => readFileSync(join(temp.home, "logs", file), "utf8").split("\n"))
      .filter((line) => line.includes('"notify.failed"'))
      .map((line) => JSON.parse(line) as { on: string; notifier: string; level: string });
    expect(
      failed.map(({ on, notifier, level }) => `${level} ${on} ${notifier.split(" ").at(-1)}`),
    ).toEqual(
      expect.arrayContaining([
        "warn waiting process.exit(3)",
        `warn waiting http://127.0.0.1:${refusedPort}`,
        "warn completed process.exit(3)",
      ]),
    );
    expect(failed).toHaveLength(3);
  });
});
