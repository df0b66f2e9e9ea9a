import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Node built-ins that cost a start milliseconds (node:crypto and the stream modules it brings,
 * child_process, net, readline, fs/promises): a lean start loads none of them (DESIGN §14).
 */
export const COSTLY_BUILTINS: readonly string[] = [
  "crypto",
  "child_process",
  "net",
  "stream",
  "readline",
  "internal/fs/promises",
  "internal/fs/streams",
];

// Preloaded into the binary: at exit, the built-ins the process loaded, by name.
const REPORTER = `
const { writeFileSync } = require("node:fs");
process.on("exit", () => {
  const names = process.moduleLoadList
    .filter((entry) => entry.startsWith("NativeModule "))
    .map((entry) => entry.slice("NativeModule ".length));
  writeFileSync(process.env.LEAN_START_REPORT, JSON.stringify(names));
});
`;

export interface LoadedBuiltins {
  code: number | null;
  stderr: string;
  /** The built-ins the process loaded, by name (`crypto`, `internal/fs/promises`, …). */
  builtins: string[];
}

/**
 * Run `node bin …args` in `home` (its cwd, HOME and UWF_HOME) with a preload that records
 * which built-ins it loads. Stdout and stderr are pipes, as in a script, or with `output:
 * "devnull"` both go to /dev/null, as in `uwf … >/dev/null 2>&1`.
 */
export function builtinsLoadedBy(
  bin: string,
  args: string[],
  home: string,
  options: { output?: "pipe" | "devnull"; env?: Record<string, string> } = {},
): LoadedBuiltins {
  const reporter = join(home, "builtins-reporter.cjs");
  const report = join(home, "builtins-report.json");
  writeFileSync(reporter, REPORTER);
  const child = spawnSync(process.execPath, ["-r", reporter, bin, ...args], {
    cwd: home,
    env: {
      ...process.env,
      ...options.env,
      UWF_HOME: home,
      HOME: home,
      LEAN_START_REPORT: report,
    },
    encoding: "utf8",
    // "ignore" opens /dev/null for the descriptor.
    stdio: options.output === "devnull" ? "ignore" : ["ignore", "pipe", "pipe"],
  });
  const builtins = JSON.parse(readFileSync(report, "utf8")) as string[];
  return { code: child.status, stderr: child.stderr ?? "", builtins };
}
