// What the torture scripts (torture.mjs, hosts-torture.mjs, fleet-torture.mjs) share: a seeded
// random sequence, child processes tracked in their own groups, and private copies of the
// built binaries.
import { spawn } from "node:child_process";
import { cpSync, existsSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** A small seeded PRNG (mulberry32), so a failing sequence of choices replays with --seed. */
export function seededRandom(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Run a private copy of a package's built binary (beside a link to its own dependencies) from
 * under `dir`, so a `pnpm build` during these minutes cannot pull the files from under a run.
 */
export function snapshotBinary(dir, pkg, bin) {
  const from = join(root, "packages", pkg);
  const to = join(dir, "bin", pkg);
  if (!existsSync(join(from, "dist/bundle/main.cjs"))) {
    throw new Error(`packages/${pkg}/dist/bundle is missing: run \`pnpm build\` first`);
  }
  for (const part of ["bin", "dist/bundle", "package.json"]) {
    cpSync(join(from, part), join(to, part), { recursive: true, dereference: true });
  }
  symlinkSync(join(from, "node_modules"), join(to, "node_modules"));
  return join(to, "bin", bin);
}

/** This process's environment without any UWF_ variable: each run names its own home. */
export function envWithoutUwf() {
  const env = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith("UWF_")) env[name] = value;
  return env;
}

/**
 * Children started in their own process groups and tracked, so `killAll` ends every one and
 * whatever it started. `start` returns the child, its output so far and `done`, which resolves
 * with the exit code, signal and whole output.
 */
export function processGroups(cwd) {
  const children = new Set();
  function start(command, args, env) {
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    const run = { child, stdout: "", stderr: "" };
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      run.stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      run.stderr += chunk;
    });
    run.done = new Promise((resolve) => {
      child.on("error", (error) => {
        children.delete(child);
        resolve({ code: null, signal: null, stdout: run.stdout, stderr: `${run.stderr}${error}` });
      });
      child.on("close", (code, signal) => {
        children.delete(child);
        resolve({ code, signal, stdout: run.stdout, stderr: run.stderr });
      });
    });
    return run;
  }
  function killAll() {
    for (const child of children) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
  return { start, killAll };
}

/** Run `task` over `items`, `width` at a time, until done or `stopped()`. */
export async function pool(items, width, stopped, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length && !stopped()) await task(items[next++]);
    }),
  );
}

/** The end of a summary: how many violations, and the first 30 of them. */
export function printViolations(violations, labelWidth) {
  console.log(`  ${"violations".padEnd(labelWidth)} ${violations.length}`);
  for (const violation of violations.slice(0, 30)) console.log(`  - ${violation}`);
  if (violations.length > 30) console.log(`  … and ${violations.length - 30} more`);
}

/**
 * Run a torture's `main` under its deadline and Ctrl-C, either of which calls `stop` (stop
 * starting work, end every child). Afterwards `cleanup` runs, the work folder is kept only when
 * something went wrong, and the exit code is 2 past the deadline, 1 on a failure or violation.
 */
export async function runTorture({ name, work, deadlineMs, violations, stop, main, cleanup }) {
  let deadlinePassed = false;
  const deadline = setTimeout(() => {
    deadlinePassed = true;
    console.error(
      `\nDEADLINE: the run did not finish within ${deadlineMs / 1000} s (--deadline-s); stopping`,
    );
    stop();
  }, deadlineMs);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping`);
      stop();
    });
  }
  let failed = false;
  try {
    await main();
  } catch (error) {
    failed = true;
    console.error(`${name} failed: ${error.stack ?? error}`);
  } finally {
    clearTimeout(deadline);
    stop();
    await cleanup();
    const bad = failed || deadlinePassed || violations.length > 0;
    if (bad) console.log(`work folder kept for inspection: ${work}`);
    else rmSync(work, { recursive: true, force: true });
    process.exitCode = deadlinePassed ? 2 : bad ? 1 : 0;
  }
}
