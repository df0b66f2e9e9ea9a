import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, sandbox, uwf } from "./fixtures/lifecycle/harness.js";

const has = (shell: string) =>
  ["/usr/bin", "/bin", "/usr/local/bin"].some((d) => existsSync(join(d, shell)));

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

async function script(shell: string): Promise<string> {
  const result = await uwf(sb, ["completion", shell]);
  expect(result.code, result.stderr).toBe(0);
  const file = join(sb.home, `uwf.${shell}`);
  writeFileSync(file, result.stdout);
  return file;
}

describe("uwf completion", () => {
  it("completes commands, sub-commands, options and choices in a real bash", async () => {
    const file = await script("bash");
    // What bash does on <TAB>: set COMP_WORDS and COMP_CWORD, call the function, read COMPREPLY.
    const driver = `
source ${JSON.stringify(file)}
c() { COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _uwf_completion; echo "\${COMPREPLY[*]}"; }
c uwf thr
c uwf thread exe
c uwf thread exec --cou
c uwf --format json thread list --status c
c uwf thread show 01K --format y
c uwf help thread exe
c uwf com
`;
    const lines = execFileSync("bash", ["--norc", "--noprofile", "-c", driver], {
      encoding: "utf8",
    }).split("\n");
    expect(lines.slice(0, 7)).toEqual([
      "thread",
      "exec",
      "--count",
      "completed cancelled corrupt",
      "yaml",
      "exec",
      "completion",
    ]);
  });

  it("prints a zsh script that parses and offers the command table", async () => {
    const file = await script("zsh");
    const text = (await uwf(sb, ["completion", "zsh"])).stdout;
    expect(text).toContain("'thread:start, run and manage threads'");
    expect(text).toContain("compdef _uwf uwf");
    if (!has("zsh")) return;
    execFileSync("zsh", ["-n", file]);
    // The completion system's helpers replaced by printers: what _uwf would offer.
    const driver = `
compdef() { :; }
_describe() { print -rl -- "\${(@P)\${@[-1]}}"; }
compadd() { print -rl -- "\${@[2,-1]}"; }
_files() { print FILES; }
source ${JSON.stringify(file)}
words=(uwf thread exec 01K --format ''); CURRENT=6; _uwf
words=(uwf thread ''); CURRENT=3; _uwf
`;
    const out = execFileSync("zsh", ["-f", "-c", driver], { encoding: "utf8" });
    expect(out).toContain("text\njson\nyaml\n");
    expect(out).toContain("exec:run the next step(s) of a thread, then exit\n");
  });

  it("prints a fish script that parses and completes", async () => {
    const file = await script("fish");
    if (!has("fish")) return;
    execFileSync("fish", ["-n", file]);
    const out = execFileSync(
      "fish",
      ["--no-config", "-c", `source ${file}; complete -C 'uwf thr'; complete -C 'uwf thread exe'`],
      { encoding: "utf8" },
    );
    expect(out).toBe(
      "thread\tstart, run and manage threads\nexec\trun the next step(s) of a thread, then exit\n",
    );
  });

  it("refuses a shell it has no script for (exit 2)", async () => {
    const result = await uwf(sb, ["completion", "powershell"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: no completion for shell "powershell"\nhint: pass one of bash, zsh, fish\n',
    );
  });
});
