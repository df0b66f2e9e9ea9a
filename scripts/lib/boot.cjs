"use strict";
// Starts a binary's bundle with V8's compiled code cached between processes (DESIGN §14).
//
// `scripts/bundle.mjs` copies this file next to each binary's CommonJS bundle
// (`dist/bundle/boot.cjs` beside `dist/bundle/main.cjs`); the package's `bin/` file requires it.
// Node 20 caches no compiled code of its own (`module.enableCompileCache` came in Node 22), so
// every start would parse and compile the whole bundle again. Here the bundle is compiled with
// `vm.Script` and the code V8 produced is saved once, after a run that exited 0, so that it
// holds the functions that run used; later starts reuse it instead of compiling.
//
// The cache is `<uwf home>/cache/code/<binary>/<build>-<command>-<node>-<arch>.bin`:
//   - <build> is the content hash that bundle.mjs writes into the bundle's first line, so a
//     cache is never used with another build (V8 itself checks only the source length);
//   - <command> is the command the argv names (`thread-exec`, `cas-get`, `help`), so each
//     command gets the code it runs, not what the first command ever run happened to use;
//   - V8 refuses a cache made by another V8 version or with other flags; it is then rewritten.
// A missing, refused or unwritable cache costs time only. `UWF_CODE_CACHE=0` turns it off.
// The caches are bounded (128 MiB in all, oldest dropped first), leave no temp files behind,
// keep 64 MiB of the disk free, and stop for an hour after a write that found the disk full.
// Chunks (`loadChunk`: files beside the bundle that few processes need) and the bundles of
// packages installed beside the binary (`importPackage`) are cached the same way, in
// `<binary>.<chunk>/` and `<binary>.<package>/`.
const { readFileSync } = require("node:fs");
const { dirname, isAbsolute, join, resolve } = require("node:path");
const { Script, constants } = require("node:vm");

const BUNDLE = join(__dirname, "main.cjs");
const BUILD = /^\/\/ uwf-bundle ([0-9a-f]{16})\n/;
const WORD = /^[a-z][a-z0-9-]{0,31}$/;

/** The binary this process booted, and its environment: named by the chunks it loads later. */
let booted = null;

/**
 * Run the bundle and return its exports. `name` names the binary in cache files; `words` is how
 * many leading command words select a command (2 for `uwf thread exec`, 0 for an adapter).
 */
function boot(name, words = 0, argv = process.argv.slice(2), env = process.env) {
  // The bundles reach Node's built-ins through process.getBuiltinModule (Node 20.16): on an
  // older Node, say so rather than fail at the first one a command needs.
  if (typeof process.getBuiltinModule !== "function") {
    require("node:fs").writeSync(
      2,
      `${name}: needs Node.js 20.16 or later, and this is ${process.version}. Install a newer Node.js (https://nodejs.org) and run it again.\n`,
    );
    process.exitCode = 1;
    return {};
  }
  booted = { name, env };
  return run(BUNDLE, name, commandKey(argv, words), env);
}

/**
 * A part of the bundle that few processes need, kept in its own file beside it (`yaml.cjs`: the
 * YAML library, loaded only when YAML is parsed) so that other starts neither read nor
 * deserialise it. Compiled with its own code cache, in `<binary>.<chunk>/`, so that pruning one
 * build's files never touches the other's.
 */
function loadChunk(chunk) {
  if (!WORD.test(chunk)) throw new Error(`not a chunk name: ${JSON.stringify(chunk)}`);
  const { name, env } = booted ?? { name: "uwf", env: process.env };
  return run(join(__dirname, `${chunk}.cjs`), `${name}.${chunk}`, "main", env);
}

/**
 * A package installed beside this binary instead of bundled into it (bundle.mjs turns the
 * bundle's `import()` of one into a call of this): its own bundle, the package's `./bundle`
 * export, resolved from this folder up, so a global install finds the sibling global package,
 * and run like a chunk, with a code cache of its own in `<binary>.<package>/`. A missing
 * package rejects with Node's MODULE_NOT_FOUND naming it.
 */
async function importPackage(name) {
  const path = require.resolve(`${name}/bundle`);
  const { name: binary, env } = booted ?? { name: "uwf", env: process.env };
  return run(path, `${binary}.${name.replace(/^.*\//, "")}`, "main", env);
}

/** Compile `path` with the code cache of `folder`/`key`, run it as a CommonJS module. */
function run(path, folder, key, env) {
  // bundle.mjs makes the bundle ASCII-only (it checks), and latin1 decodes that fastest.
  const source = readFileSync(path, "latin1");
  const build = BUILD.exec(source);
  const file =
    build !== null && env.UWF_CODE_CACHE !== "0"
      ? join(cacheDir(env), folder, `${build[1]}-${key}-${process.version}-${process.arch}.bin`)
      : null;
  let cached;
  if (file !== null) {
    try {
      cached = readFileSync(file);
    } catch {
      // None yet: this run writes it.
    }
  }
  // A built bundle is already wrapped as a CommonJS module function (bundle.mjs); anything else
  // (a file without the build line) is wrapped here.
  const script = new Script(build !== null ? source : wrap(source), {
    filename: path,
    cachedData: cached,
    // From Node 20.12 code compiled here may `import()` like any module (bundles have no such
    // call today: esbuild inlines every import() of bundled code); older ones would throw.
    importModuleDynamically: constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (file !== null && (cached === undefined || script.cachedDataRejected)) {
    process.once("exit", (code) => {
      if (code === 0) save(file, build[1], script.createCachedData());
    });
  }
  const module = { exports: {}, filename: path, id: path };
  // This file's own `require`: the bundle and its chunks sit beside it, so it resolves what
  // theirs would (one `createRequire` and the `node:module` it needs less per start).
  script.runInThisContext()(module.exports, require, module, path, dirname(path));
  return module.exports;
}

/**
 * `code` as the body of a CommonJS module function, the expression a bundle compiles to.
 * bundle.mjs writes bundles so, after their build line; boot.cjs wraps any other file itself.
 */
function wrap(code) {
  return `(function (exports, require, module, __filename, __dirname) {${code}\n})`;
}

/** `thread-exec`, `cas-get-help`, `main`, `main-version`: the command words and help/version. */
function commandKey(argv, words) {
  const parts = [];
  let help = false;
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") break;
    if (arg === "-h" || arg === "--help") help = true;
    else if (arg === "-V" || arg === "--version") version = true;
    else if (arg === "--format") i++;
    else if (arg.startsWith("-")) continue;
    else if (parts.length < words && WORD.test(arg)) parts.push(arg);
    else break;
  }
  if (parts.length === 0) parts.push("main");
  if (help) parts.push("help");
  if (version) parts.push("version");
  return parts.join("-");
}

/** `<home>/cache/code`, with the home `uwf` uses: UWF_HOME, else ~/.uwf. */
function cacheDir(env) {
  const home = env.UWF_HOME?.trim();
  const root = home
    ? isAbsolute(home)
      ? home
      : resolve(home)
    : join(require("node:os").homedir(), ".uwf");
  return join(root, "cache", "code");
}

/** The most every binary's code caches may take together: beyond it the oldest files go. */
const MAX_CACHE_BYTES = 128 * 1024 * 1024;
/** The space a cache file must leave free on its disk, so that a cache never fills a small one. */
const KEEP_FREE_BYTES = 64 * 1024 * 1024;
/** After a full disk (ENOSPC, EDQUOT) no cache is written for this long. */
const OFF_AFTER_FULL_MS = 3_600_000;
/** The file in `cache/code/` that says so; its time is when the disk was full. */
const OFF_MARKER = "off-disk-full";
/** A temp file this old was left by a process killed while it wrote. */
const STALE_TEMP_MS = 600_000;
const DAY_MS = 86_400_000;

/**
 * Write the code V8 compiled (`data`) to `file`, whole or not at all, then keep the cache
 * folder in bounds. Nothing is written while the disk has less than KEEP_FREE_BYTES free, or
 * within OFF_AFTER_FULL_MS of a write that found it full (the temp file is removed, and the
 * marker file says when). Any other failure (a read-only home) costs the next start a compile.
 * `options` replaces `fs` and the clock in tests.
 */
function save(file, build, data, options = {}) {
  const fs = options.fs ?? require("node:fs");
  const now = options.now ?? Date.now();
  const dir = dirname(file);
  const root = dirname(dir);
  const marker = join(root, OFF_MARKER);
  try {
    if (mtimeOf(fs, marker) > now - OFF_AFTER_FULL_MS) return;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (freeBytes(fs, dir) < data.length + KEEP_FREE_BYTES) return;
    const temp = `${file}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(temp, data, { mode: 0o600 });
      fs.renameSync(temp, file);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      if (error?.code === "ENOSPC" || error?.code === "EDQUOT") fs.writeFileSync(marker, "");
      return;
    }
    prune(fs, root, file, build, now, options.maxBytes ?? MAX_CACHE_BYTES);
  } catch {
    // A read-only or full disk: the next start compiles again.
  }
}

/**
 * Keep `cache/code` in bounds after `file` was written: drop temp files that processes killed
 * mid-write left, this binary's other builds' files once a day has passed since they were
 * written (two installs sharing one home would otherwise delete each other's caches at every
 * start), then the oldest files of any binary until all of them fit in `maxBytes`.
 */
function prune(fs, root, file, build, now, maxBytes) {
  const others = [];
  let total = 0;
  for (const folder of fs.readdirSync(root, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    const dir = join(root, folder.name);
    for (const name of fs.readdirSync(dir)) {
      const path = join(dir, name);
      const stats = fs.statSync(path, { throwIfNoEntry: false });
      if (stats === undefined) continue;
      const stale = name.endsWith(".tmp")
        ? stats.mtimeMs < now - STALE_TEMP_MS
        : dir === dirname(file) && !name.startsWith(`${build}-`) && stats.mtimeMs < now - DAY_MS;
      if (stale) {
        fs.rmSync(path, { force: true });
        continue;
      }
      total += stats.size;
      if (path !== file && !name.endsWith(".tmp")) others.push({ path, stats });
    }
  }
  others.sort((a, b) => a.stats.mtimeMs - b.stats.mtimeMs);
  for (const { path, stats } of others) {
    if (total <= maxBytes) break;
    fs.rmSync(path, { force: true });
    total -= stats.size;
  }
}

function mtimeOf(fs, path) {
  return fs.statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NEGATIVE_INFINITY;
}

/** The bytes this user may still write on the disk of `dir` (unknown: unbounded). */
function freeBytes(fs, dir) {
  if (typeof fs.statfsSync !== "function") return Number.POSITIVE_INFINITY;
  const { bavail, bsize } = fs.statfsSync(dir);
  return bavail * bsize;
}

module.exports = { boot, commandKey, importPackage, loadChunk, save, wrap };
