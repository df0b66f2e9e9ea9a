import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "@united-workforce/test-utils";
import { describe, expect, it } from "vitest";

// `pnpm bench:scale` at a toy size on the filesystem only: the script still builds its store
// (two steps a thread), runs every command it times and a tiny throughput run (the bench itself is run by hand, not in CI). It needs
// `perf stat` for CPU time; where it is missing or the machine does not support it, skipped.

const perfFound = spawnSync("perf", ["stat", "-e", "task-clock", "true"]).status === 0;

describe.skipIf(!perfFound)("bench:scale", () => {
  it("prints a table with every command at two tiny sizes, and the throughput", () => {
    const result = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, "bench/scale.mjs"),
        ...["--sizes", "10,20", "--backends", "fs", "--runs", "1", "--steps", "2"],
        ...["--throughput", "2"],
      ],
      { encoding: "utf8", timeout: 170_000 },
    );
    expect(result.stderr).toContain("fs: 20 threads built");
    expect(result.status).toBe(0);
    for (const command of ["thread show", "thread list --status suspended", "cas verify", "usage"])
      expect(result.stdout).toContain(command);
    expect(result.stdout).toMatch(/10→20/);
    expect(result.stdout).toMatch(/throughput: steps per second, 12 execs in flight/);
    expect(result.stdout).toMatch(/^fs +\d+\.\d +1\.00$/m);
  }, 180_000);
});
