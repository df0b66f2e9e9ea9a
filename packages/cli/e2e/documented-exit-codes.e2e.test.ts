import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExitCode } from "@united-workforce/protocol";
import { openHomeStore } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMMANDS } from "../src/commands/index.js";
import {
  HELLO,
  mockAgent,
  type Sandbox,
  sandbox,
  scenario,
  startThread,
  uwf,
} from "./fixtures/lifecycle/harness.js";

/**
 * Every exit status a command's help promises ("exit 3 when invalid", "give up after this
 * long (exit 5)"), found in the command table, and a run that must end with it. A promise
 * added to the help without a case here fails the first test, so help and behaviour agree.
 */
function documentedExits(): string[] {
  const found = new Set<string>();
  for (const command of COMMANDS) {
    const texts = [
      command.summary,
      command.description ?? "",
      ...(command.options ?? []).map((option) => option.description),
    ];
    for (const text of texts) {
      for (const match of text.matchAll(/\bexit(?:s| status is then)? (\d+)/gi)) {
        found.add(`${command.path.join(" ")}: ${match[1]}`);
      }
    }
  }
  return [...found].sort();
}

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

/** Run `work` while this test process holds the thread's exec lease (a live holder). */
async function whileHeld<T>(thread: string, work: () => Promise<T>): Promise<T> {
  const store = await openHomeStore(sb.home);
  const { lease } = await store.leases.acquire(thread, { command: "test holder" });
  try {
    return await work();
  } finally {
    await lease.release();
    await store.close();
  }
}

const HELLO_WITH_HOST = `name: hello
roles:
  host:
    goal: Open.
    frontmatter: { type: object, properties: { $status: { const: done } }, required: [$status] }
  greeter:
    goal: Greet.
    frontmatter:
      type: object
      properties: { $status: { const: done }, greeting: { type: string } }
      required: [$status, greeting]
graph:
  $START:
    new: { role: host, prompt: "Open." }
    resume: { role: host, prompt: "Again." }
  host:
    done: { role: greeter, prompt: "Greet." }
  greeter:
    done: { role: $END, prompt: "Done: {{{greeting}}}" }
`;

const CASES: Record<string, () => Promise<number | null>> = {
  "workflow validate: 3": async () => {
    const file = join(sb.work, "broken.yaml");
    writeFileSync(file, "name: broken\nroles: {}\ngraph: {}\n");
    return (await uwf(sb, ["workflow", "validate", file])).code;
  },
  "thread exec: 5": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    return whileHeld(thread, async () => (await uwf(sb, ["thread", "exec", thread])).code);
  },
  "thread exec: 4": async () => {
    // A failed agent suspended the thread; the next exec runs nothing and says so again.
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const crash = mockAgent(scenario(sb, "crash", [{ role: "greeter", exit: 1 }]));
    const failed = await uwf(sb, ["thread", "exec", thread, "--agent", crash]);
    if (failed.code !== 4) throw new Error(`the agent did not fail: ${failed.stderr}`);
    return (await uwf(sb, ["thread", "exec", thread])).code;
  },
  "thread exec: 0": async () => {
    // The thread waits for a human's answer: exec runs nothing, and that is not a failure.
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const asks = [{ role: "greeter", output: { $status: "$SUSPEND", reason: "Which Ada?" } }];
    const asked = await uwf(sb, [
      "thread",
      "exec",
      thread,
      "--agent",
      mockAgent(scenario(sb, "asks", asks)),
    ]);
    if (asked.code !== 0) throw new Error(`the agent did not ask: ${asked.stderr}`);
    return (await uwf(sb, ["thread", "exec", thread])).code;
  },
  "thread exec: 130": async () => {
    // A cancelled thread: exec runs nothing, and says it was interrupted, as join would.
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const cancel = await uwf(sb, ["thread", "cancel", thread]);
    if (cancel.code !== 0) throw new Error(`the cancel failed: ${cancel.stderr}`);
    return (await uwf(sb, ["thread", "exec", thread])).code;
  },
  "thread join: 5": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    return whileHeld(
      thread,
      async () => (await uwf(sb, ["thread", "join", thread, "--timeout", "1"])).code,
    );
  },
  "cas has: 1": async () => (await uwf(sb, ["cas", "has", "0000000000000"])).code,
  "cas verify: 1": async () => {
    const hash = (await uwf(sb, ["cas", "put-text", "to be damaged"])).stdout.trim();
    const shard = join(sb.home, "cas", hash.slice(0, 2));
    const file = join(shard, readdirSync(shard).find((name) => name.startsWith(hash))!);
    writeFileSync(file, "{}");
    return (await uwf(sb, ["cas", "verify"])).code;
  },
  "thread verify: 1": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    // The thread's StartNode, damaged: verify names it and fails.
    const start = JSON.parse((await uwf(sb, ["thread", "show", thread, "--format", "json"])).stdout)
      .head as string;
    const shard = join(sb.home, "cas", start.slice(0, 2));
    writeFileSync(join(shard, readdirSync(shard).find((name) => name.startsWith(start))!), "{}");
    return (await uwf(sb, ["thread", "verify", thread])).code;
  },
  "workflow test: 1": async () => {
    // A recorded hello thread, tested against a copy whose greeter goal changed: a miss.
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const mock = mockAgent(
      scenario(sb, "hi", [{ role: "greeter", output: { $status: "done", greeting: "Hi" } }]),
    );
    const recorded = await uwf(sb, ["thread", "exec", thread, "--agent", mock]);
    if (recorded.code !== 0) throw new Error(`recording failed: ${recorded.stderr}`);
    mkdirSync(join(sb.home, "edited"));
    const edited = join(sb.home, "edited", "hello.yaml");
    writeFileSync(edited, readFileSync(HELLO, "utf8").replace("goal: Greet", "goal: Warmly greet"));
    return (await uwf(sb, ["workflow", "test", edited, "--from", thread])).code;
  },
  "thread reroute: 0": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    return (await uwf(sb, ["thread", "reroute", thread, "-w", HELLO])).code;
  },
  "thread reroute: 1": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    // Another version of hello where a host speaks first: the route changes at the start.
    mkdirSync(join(sb.work, "v2"));
    const file = join(sb.work, "v2", "hello.yaml");
    writeFileSync(file, HELLO_WITH_HOST);
    return (await uwf(sb, ["thread", "reroute", thread, "-w", file])).code;
  },
  "thread grep: 0": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const steps = [{ role: "greeter", output: { $status: "done", greeting: "Hello, Ada!" } }];
    const agent = mockAgent(scenario(sb, "hello-scenario.yaml", steps));
    await uwf(sb, ["thread", "exec", thread, "--agent", agent]);
    return (await uwf(sb, ["thread", "grep", "Hello, Ada"])).code;
  },
  "thread grep: 1": async () => {
    await startThread(sb, HELLO, "Greet Ada.");
    return (await uwf(sb, ["thread", "grep", "Hello, Ada"])).code;
  },
  "thread race: 0": async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const steps = [{ role: "greeter", output: { $status: "done", greeting: "Hello, Ada!" } }];
    const agent = mockAgent(scenario(sb, "hello-scenario.yaml", steps));
    return (await uwf(sb, ["thread", "race", thread, "--agents", `${agent},${agent}`])).code;
  },
  "setup: 1": async () =>
    // Port 9 (discard) refuses on this host: the model check fails, the config is saved.
    (
      await uwf(sb, [
        "setup",
        "--provider",
        "gone",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
      ])
    ).code,
  "config get: 1": async () => (await uwf(sb, ["config", "get", "defaultAgent"])).code,
  "doctor: 1": async () => {
    writeFileSync(
      join(sb.home, "config.yaml"),
      "agents:\n  ghost:\n    command: uwf-no-such-adapter\ndefaultAgent: ghost\n",
    );
    return (await uwf(sb, ["doctor"])).code;
  },
};

describe("the exit statuses the help promises", () => {
  it("each have a case here", () => {
    expect(Object.keys(CASES).sort()).toEqual(documentedExits());
  });

  it.each(Object.keys(CASES))("%s", async (key) => {
    const expected = Number(key.slice(key.lastIndexOf(" ") + 1));
    expect(Object.values(ExitCode)).toContain(expected);
    expect(await CASES[key]!()).toBe(expected);
  });
});
