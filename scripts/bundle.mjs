#!/usr/bin/env node
// Bundles each binary into a few ESM files after `tsc -b`: one file to load starts far faster
// than hundreds of modules (DESIGN §14). Commands import their heavy libraries lazily, and
// code splitting keeps those in chunks that load only when a command needs them.
//
// `dist/bundle` is a plain folder (packing drops symlinks), updated in place so that a `uwf`
// process running during a rebuild (a background worker loading chunks lazily) never finds a
// chunk missing or half-written:
//   1. chunks are named by their content hash, so a name never changes meaning; new ones are
//      written to a temp file and renamed into place;
//   2. `main.js` is replaced last, by one rename;
//   3. only chunks that neither the new nor the previous `main.js` reaches are removed.
// A process started two builds ago may still miss a chunk; nothing older is kept.
//
// `node scripts/bundle.mjs --prune <dir>` (each binary package's prepack) builds nothing and
// removes every chunk the current `main.js` does not reach, so a package ships one build.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { withLock } from "./lib/file-lock.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

// CommonJS dependencies (ajv, mustache, xxhashjs) call require() for Node built-ins.
const banner = {
  js: "import { createRequire as __uwfCreateRequire } from 'node:module'; const require = __uwfCreateRequire(import.meta.url);",
};

const cliVersion = JSON.parse(readFileSync(`${root}packages/cli/package.json`, "utf8")).version;

const targets = [
  { entry: "packages/cli/dist/main.js", outdir: "packages/cli/dist/bundle" },
  { entry: "packages/agent-mock/dist/main.js", outdir: "packages/agent-mock/dist/bundle" },
  { entry: "packages/agent-builtin/dist/main.js", outdir: "packages/agent-builtin/dist/bundle" },
  { entry: "packages/agent-acp/dist/main.js", outdir: "packages/agent-acp/dist/bundle" },
  {
    entry: "packages/agent-claude-code/dist/main.js",
    outdir: "packages/agent-claude-code/dist/bundle",
  },
  { entry: "packages/agent-codex/dist/main.js", outdir: "packages/agent-codex/dist/bundle" },
];

const ENTRY = "main.js";
const CHUNKS = "chunks";
// A temp file names its writer's pid, so a build never takes another live build's file.
const TEMP = /^\.(.+)\.(\d+)\.tmp$/;

const pruneAt = process.argv.indexOf("--prune");
if (pruneAt !== -1) {
  const dir = resolve(process.argv[pruneAt + 1] ?? "dist/bundle");
  if (!existsSync(join(dir, ENTRY))) {
    console.error(`${join(dir, ENTRY)} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
  withLock(`${dir}.lock`, () => removeUnreached(dir, reachable(join(dir, ENTRY), readIfPresent)));
  process.exit(0);
}

for (const { entry, outdir } of targets) {
  if (!existsSync(`${root}${entry}`)) continue;
  const dir = `${root}${outdir}`;
  const result = await build({
    entryPoints: { main: `${root}${entry}` },
    outdir: dir,
    write: false,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    banner,
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    logLevel: "warning",
    legalComments: "none",
    define: { __UWF_VERSION__: JSON.stringify(cliVersion) },
  });
  withLock(`${dir}.lock`, () => install(dir, result.outputFiles));
}

/** Put a fresh build into `dir` in the order that keeps every running process whole. */
function install(dir, outputFiles) {
  removeOldLayout(dir);
  mkdirSync(join(dir, CHUNKS), { recursive: true });
  const built = new Map(outputFiles.map((file) => [resolve(file.path), file.text]));
  const main = join(dir, ENTRY);
  for (const file of outputFiles) {
    if (!file.path.startsWith(join(dir, CHUNKS))) continue;
    // Same name, same content: a chunk already there is this one.
    if (!existsSync(file.path)) writeAtomically(file.path, file.text);
  }
  const keep = new Set([
    ...reachable(main, (path) => built.get(path)),
    ...reachable(main, (path) => readIfPresent(path)),
  ]);
  writeAtomically(main, built.get(main));
  removeUnreached(dir, keep);
}

/** Remove the chunks not in `keep`, and temp files whose writer has died. */
function removeUnreached(dir, keep) {
  for (const folder of [dir, join(dir, CHUNKS)]) {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const temp = TEMP.exec(name);
      const stale = temp
        ? !isRunning(Number(temp[2]))
        : folder !== dir && name.endsWith(".js") && !keep.has(path);
      if (stale) rmSync(path, { force: true });
    }
  }
}

/**
 * Earlier builds made `dist/bundle` a symlink to `bundle-<time>-<pid>` folders, which packing
 * drops; replace that with a plain folder and remove the old copies.
 */
function removeOldLayout(dir) {
  if (isSymlink(dir)) rmSync(dir, { force: true });
  const parent = dirname(dir);
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    if (name.startsWith(`${basename(dir)}-`) || name.startsWith(`${basename(dir)}.link-`)) {
      rmSync(join(parent, name), { recursive: true, force: true });
    }
  }
}

/** Every file `start` loads, itself included, reading each with `read` (null when absent). */
function reachable(start, read) {
  const seen = new Set();
  const pending = [start];
  while (pending.length > 0) {
    const path = pending.pop();
    if (seen.has(path)) continue;
    const text = read(path);
    if (text === null || text === undefined) continue;
    seen.add(path);
    for (const specifier of relativeImports(text)) pending.push(resolve(dirname(path), specifier));
  }
  return seen;
}

/** Relative `.js` specifiers of static and dynamic imports in esbuild's output. */
function relativeImports(text) {
  const specifiers = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.\.?\/[^"']+\.js)["']/g;
  for (const match of text.matchAll(pattern)) specifiers.push(match[1]);
  return specifiers;
}

function writeAtomically(path, text) {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(temp, text);
  renameSync(temp, path);
}

function readIfPresent(path) {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (error.code === "ENOENT") return null;
    throw error;
  }
}

function isSymlink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
