#!/usr/bin/env node
// Where a uwf process spends its start: runs one command N times under `node --cpu-prof`
// (which leaves the code cache valid) and prints the average CPU time per category and the
// heaviest functions. Load-insensitive enough to compare before and after a change.
//
//   node bench/profile.mjs [--runs N] [--home DIR] -- <bin> <args…>
//   node bench/profile.mjs -- packages/cli/bin/uwf.cjs cas get <hash>
//
// NODE_EXTRA_CA_CERTS is removed for the runs, as in `pnpm bench`'s headline. The bundles'
// identifiers are minified: build with `UWF_BUNDLE_PRETTY=1 pnpm build` to read uwf's functions
// by name (the figures then shift a little: the bundle is larger).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
if (split === -1 || split === argv.length - 1) {
  console.error("usage: node bench/profile.mjs [--runs N] [--home DIR] -- <bin> <args…>");
  process.exit(2);
}
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at !== -1 && at < split ? argv[at + 1] : fallback;
};
const runs = Number(option("--runs", "10"));
const command = argv.slice(split + 1);
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const home = option("--home", undefined);
if (home) env.UWF_HOME = home;

/** Average CPU time per category and per function over `runs` profiled runs of `args`. */
function profile(args) {
  const dir = mkdtempSync(join(tmpdir(), "uwf-profile-"));
  // One run first, unprofiled, so that the code cache exists.
  spawnSync(process.execPath, args, { env, stdio: ["ignore", "pipe", "ignore"] });
  for (let i = 0; i < runs; i++) {
    const run = spawnSync(
      process.execPath,
      ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "20", ...args],
      // stdout a pipe, as in `pnpm bench`: /dev/null is a character device, for which uwf
      // asks the terminal's width and so creates process.stdout (net, tty, the streams).
      { env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0) {
      console.error(`exit ${run.status}: ${run.stderr}`);
      process.exit(1);
    }
  }
  const byCategory = new Map();
  const byFunction = new Map();
  let total = 0;
  const files = readdirSync(dir).filter((name) => name.endsWith(".cpuprofile"));
  for (const name of files) {
    const data = JSON.parse(readFileSync(join(dir, name), "utf8"));
    const frames = new Map(data.nodes.map((node) => [node.id, node.callFrame]));
    data.samples.forEach((id, i) => {
      const micros = (data.timeDeltas[i] ?? 0) / files.length / 1000;
      const frame = frames.get(id);
      const where = `${frame.functionName || "(anonymous)"} ${basename(frame.url)}:${frame.lineNumber}`;
      byCategory.set(category(frame), (byCategory.get(category(frame)) ?? 0) + micros);
      byFunction.set(where, (byFunction.get(where) ?? 0) + micros);
      total += micros;
    });
  }
  rmSync(dir, { recursive: true, force: true });
  return { total, byCategory, byFunction };
}

// What a sample's function says about where the time went.
function category(frame) {
  const { functionName: fn, url } = frame;
  if (fn === "(garbage collector)") return "garbage collection";
  if (fn === "(idle)") return "idle (waiting: a child, the disk)";
  if (fn === "(program)") return "V8 and Node native (start, parsing)";
  if (url === "node:vm" || fn === "createCachedData") return "code cache (deserialize, write)";
  if (fn === "compileForInternalLoader" || fn === "requireBuiltin") return "loading Node built-ins";
  if (url.endsWith("main.cjs") || url.endsWith("boot.cjs")) return "uwf code";
  if (url.startsWith("node:") || url === "" || !url.includes("/")) return "Node internals";
  return "other scripts";
}

const bare = profile(["-e", "0"]);
const run = profile(command);
const ms = (value) => value.toFixed(2).padStart(7);
console.log(`${command.join(" ")}: CPU profile, average of ${runs} runs\n`);
console.log(`${"command".padStart(7)}  ${"node -e 0".padStart(9)}  ${"extra".padStart(7)}`);
const names = [...run.byCategory.keys()].sort(
  (a, b) => run.byCategory.get(b) - run.byCategory.get(a),
);
for (const name of names) {
  const mine = run.byCategory.get(name) ?? 0;
  const base = bare.byCategory.get(name) ?? 0;
  console.log(`${ms(mine)}  ${ms(base).padStart(9)}  ${ms(mine - base)}  ${name}`);
}
console.log(
  `${ms(run.total)}  ${ms(bare.total).padStart(9)}  ${ms(run.total - bare.total)}  total (ms)`,
);
console.log("\nheaviest functions (self time, ms):");
for (const [name, value] of [...run.byFunction]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(process.env.PROFILE_TOP ?? 15))) {
  console.log(`${ms(value)}  ${name}`);
}
