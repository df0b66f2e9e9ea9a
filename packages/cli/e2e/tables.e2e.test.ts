import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, UWF_BIN } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  HELLO,
  mockAgent,
  type Sandbox,
  sandbox,
  startThread,
  uwf,
  uwfJson,
} from "./fixtures/lifecycle/harness.js";

const HELLO_SCENARIO = join(REPO_ROOT, "examples/scenarios/hello.yaml");
const SCRIPT = "/usr/bin/script";

/** Run uwf with stdout on a pseudo-terminal (util-linux `script`), as a person at a terminal. */
function uwfOnTerminal(sb: Sandbox, args: string[]): string {
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, UWF_BIN, ...args].map(quote).join(" ");
  const out = execFileSync(SCRIPT, ["-qec", `stty cols 200; ${command}`, "/dev/null"], {
    cwd: sb.work,
    env: { ...process.env, UWF_HOME: sb.home, NO_COLOR: "1" },
    encoding: "utf8",
  });
  return out.replaceAll("\r\n", "\n");
}

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

describe.skipIf(!existsSync(SCRIPT))("lists on a terminal", () => {
  it("are aligned tables with a header and relative times; piped, they keep their lines", async () => {
    await uwf(sb, ["workflow", "add", HELLO]);
    const { thread } = await startThread(sb, "hello", "Greet Ada.");
    await uwfJson(sb, ["thread", "exec", thread, "--agent", mockAgent(HELLO_SCENARIO)]);

    const threads = uwfOnTerminal(sb, ["thread", "list"]).trimEnd().split("\n");
    expect(threads[0]).toBe(
      "THREAD                      TITLE       STATUS     WORKFLOW  ROLE     STEPS  UPDATED",
    );
    expect(threads[1]).toMatch(
      new RegExp(
        `^${thread}  Greet Ada\\.  completed  hello     greeter      1  (just now|\\d+ s ago)$`,
      ),
    );

    const steps = uwfOnTerminal(sb, ["step", "list", thread]).trimEnd().split("\n");
    expect(steps[0]).toMatch(/^# {2}HASH {11}ROLE {5}STATUS {2}AGENT {5}STARTED +TOOK$/);
    expect(steps[1]).toMatch(
      /^1 {2}[0-9A-Z]{13} {2}greeter {2}done {4}.+ (just now|\d+ s ago) +\d/,
    );

    const workflows = uwfOnTerminal(sb, ["workflow", "list"]).trimEnd().split("\n");
    expect(workflows[0]).toBe("NAME   HASH           VERSIONS  UPDATED");
    expect(workflows[1]).toMatch(/^hello {2}[0-9A-Z]{13} {9}1 {2}(just now|\d+ s ago)$/);

    // Off a terminal the same lists are the plain lines scripts already read.
    const piped = await uwf(sb, ["thread", "list"]);
    expect(piped.stdout).toMatch(
      new RegExp(
        `^${thread}  completed  hello  greeter  1 step  \\d{4}-\\d{2}-\\d{2}T[^ ]+Z  “Greet Ada\\.”\\n$`,
      ),
    );
  });
});
