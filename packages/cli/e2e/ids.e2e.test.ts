import { join } from "node:path";
import { openHomeStore, REPO_ROOT } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type ExecDoc,
  HELLO,
  mockAgent,
  type Sandbox,
  sandbox,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

const HELLO_SCENARIO = join(REPO_ROOT, "examples/scenarios/hello.yaml");

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

describe("ids and hashes as git takes them: unique prefixes, any case", () => {
  it("finds a thread and a step by a lower-case prefix", async () => {
    const { thread } = await startThread(sb, HELLO, "Greet Ada.");
    const exec = await uwfJson<ExecDoc>(sb, [
      "thread",
      "exec",
      thread.slice(0, 12).toLowerCase(),
      "--agent",
      mockAgent(HELLO_SCENARIO),
    ]);
    expect(exec.thread).toBe(thread);
    const step = exec.steps[0]!.hash;
    const show = await uwfJson<{ thread: string }>(sb, ["thread", "show", thread.toLowerCase()]);
    expect(show.thread).toBe(thread);
    const stepShow = await uwfJson<{
      hash: string;
      startedAt: string;
      completedAt: string;
      startedAtMs: number;
      completedAtMs: number;
    }>(sb, ["step", "show", step.slice(0, 6).toLowerCase()]);
    expect(stepShow.hash).toBe(step);
    // Times in documents are ISO 8601 UTC; the node's own epoch fields stay beside them.
    expect(stepShow.startedAt).toBe(new Date(stepShow.startedAtMs).toISOString());
    expect(stepShow.completedAt).toBe(new Date(stepShow.completedAtMs).toISOString());
    const got = await uwfJson<{ hash: string }>(sb, ["cas", "get", step.slice(0, 5)]);
    expect(got.hash).toBe(step);
  });

  it("refuses a prefix that is too short, matches nothing, or matches several", async () => {
    const short = await uwf(sb, ["thread", "show", "01a"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("hint: Give at least 4 characters of the thread id.");

    const none = await uwf(sb, ["cas", "get", "ZZZZZZ"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("error: no node's hash starts with ZZZZZZ");

    // Text nodes until two share their first four characters (about a thousand, in process).
    const store = await openHomeStore(sb.home);
    const seen = new Map<string, string>();
    let pair: [string, string] | undefined;
    try {
      for (let i = 0; pair === undefined; i++) {
        const hash = await store.cas.putText(`text ${i}`);
        const other = seen.get(hash.slice(0, 4));
        if (other !== undefined) pair = [other, hash];
        seen.set(hash.slice(0, 4), hash);
      }
    } finally {
      await store.close();
    }
    const prefix = pair[0].slice(0, 4);
    const ambiguous = await uwf(sb, ["cas", "get", prefix, "--format", "json"]);
    expect(ambiguous.code).toBe(2);
    const error = JSON.parse(ambiguous.stderr).error;
    expect(error.code).toBe("ID_AMBIGUOUS");
    expect(error.message).toBe(
      `hash prefix ${prefix} is ambiguous: it matches ${[...pair].sort().join(", ")}`,
    );
  });
});
