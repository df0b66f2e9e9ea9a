import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  runUwf,
  type StartedProcess,
  startUwf,
  type TempHome,
  tempHome,
} from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeNestedFanout } from "./fixtures/fanout/nested.js";

/**
 * `thread watch <parent>` follows a background exec's whole fan-out, as the exec itself shows
 * it: the parent fans out to two children of workflow `mid`, each of which fans out to one
 * grandchild. The grandchildren's script waits for a gate file, so they finish while the watch
 * is following.
 */

/** Waits for `gate` (polling in the script, not in the test), then reports done. */
const leaf = (gate: string) => `const { existsSync } = require("node:fs");
const timer = setInterval(() => {
  if (!existsSync(${JSON.stringify(gate)})) return;
  clearInterval(timer);
  console.log(JSON.stringify({ $status: "done", task: process.env.UWF_TASK }));
}, 10);
`;

/** Resolves once `process` has written `text` to stderr; rejects if it ends first. */
function stderrShows(process: StartedProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!process.stderr().includes(text)) return;
      process.child.stderr.off("data", check);
      resolve();
    };
    process.child.stderr.on("data", check);
    process.child.once("close", () =>
      reject(new Error(`ended without printing ${JSON.stringify(text)}:\n${process.stderr()}`)),
    );
    check();
  });
}

describe("thread watch of a fan-out", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  it("shows the children's and the grandchildren's steps as they end, from any level", async () => {
    const gate = join(temp.home, "gate");
    const top = writeNestedFanout(temp.home, { leafScript: leaf(gate) });
    const uwf = (...args: string[]) => runUwf(args, { home: temp.home, cwd: temp.home });
    const thread = (await uwf("thread", "start", top, "-p", "Go")).stdout.trim();
    const background = await uwf("thread", "exec", thread, "-c", "3", "--background");
    expect(background.code, background.stderr).toBe(0);

    const watch = startUwf(["thread", "watch", thread], { home: temp.home, cwd: temp.home });
    await stderrShows(watch, `Watching thread ${thread}`);
    // A grandchild has started (as what it is doing now, or live): watch its parent as well.
    await stderrShows(watch, "#1 leaf (script) started on thread ");
    const grandchild = /#1 leaf \(script\) started on thread (\w{26})/.exec(watch.stderr())![1]!;
    const shown = await uwf("thread", "show", grandchild, "--format", "json");
    const child = (JSON.parse(shown.stdout) as { parent: { thread: string } }).parent.thread;
    const middle = startUwf(["thread", "watch", child], { home: temp.home, cwd: temp.home });
    await stderrShows(middle, `Watching thread ${child}: running step 1 of thread ${grandchild}`);

    writeFileSync(gate, "");
    const ofChild = await middle.done;
    expect(ofChild.code, ofChild.stderr).toBe(0);
    // Its own child's step and its join; nothing of its sibling's or its parent's.
    expect(ofChild.stderr.match(/✓ #1 leaf → done .* · thread “Leaf work\.”\n/g)).toHaveLength(1);
    expect(ofChild.stderr).toMatch(
      new RegExp(
        `⇇ #1 gather joined the children of (${child.slice(0, 10)}|“[^”]+”): 1 completed, 0 failed\n`,
      ),
    );
    expect(ofChild.stderr).not.toContain("collect");
    expect(ofChild.stdout).toBe(`${child}: completed after 1 step — Done.\n`);

    const result = await watch.done;
    expect(result.code, result.stderr).toBe(0);
    // Each grandchild's step (a leaf), each child's join (gather), then the parent's join.
    expect(result.stderr.match(/✓ #1 leaf → done .* · thread “Leaf work\.”\n/g)).toHaveLength(2);
    expect(
      result.stderr.match(/⇇ #1 gather joined the children of (\w{10}|“[^”]+”): 1 completed/g),
    ).toHaveLength(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `⇇ #2 collect joined the children of (${thread.slice(0, 10)}|“Go”): 2 completed, 0 failed\\n`,
      ),
    );
    expect(result.stdout).toBe(`${thread}: completed after 2 steps — All done.\n`);
  });
});
