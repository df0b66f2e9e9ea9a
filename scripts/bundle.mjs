#!/usr/bin/env node
// Bundles each binary into a few ESM files after `tsc -b`: one file to load starts far faster
// than hundreds of modules (DESIGN §14). Commands import their heavy libraries lazily, and
// code splitting keeps those in chunks that load only when a command needs them.
// Each bundle is built in a fresh folder, and `dist/bundle` is a symlink swapped to it with one
// rename, so a `uwf` process never sees a half-written or missing bundle; the previous build
// is kept for processes (e.g. background workers) still loading chunks from it.
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

// CommonJS dependencies (ajv, mustache, xxhashjs) call require() for Node built-ins.
const banner = {
  js: "import { createRequire as __uwfCreateRequire } from 'node:module'; const require = __uwfCreateRequire(import.meta.url);",
};

const cliVersion = JSON.parse(readFileSync(`${root}packages/cli/package.json`, "utf8")).version;

const targets = [
  { entry: "packages/cli/dist/main.js", outdir: "packages/cli/dist/bundle" },
  { entry: "packages/agent-mock/dist/main.js", outdir: "packages/agent-mock/dist/bundle" },
];

for (const { entry, outdir } of targets) {
  if (!existsSync(`${root}${entry}`)) continue;
  const link = `${root}${outdir}`;
  const name = `${basename(link)}-${Date.now()}-${process.pid}`;
  const fresh = join(dirname(link), name);
  await build({
    entryPoints: { main: `${root}${entry}` },
    outdir: fresh,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    banner,
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
    legalComments: "none",
    define: { __UWF_VERSION__: JSON.stringify(cliVersion) },
  });
  const previous = linkTarget(link);
  if (previous === null && existsSync(link)) rmSync(link, { recursive: true, force: true });
  const tmpLink = `${link}.link-${process.pid}`;
  rmSync(tmpLink, { force: true });
  symlinkSync(name, tmpLink);
  renameSync(tmpLink, link);
  for (const entryName of readdirSync(dirname(link))) {
    const isBuild = entryName.startsWith(`${basename(link)}-`);
    if (isBuild && entryName !== name && entryName !== previous) {
      rmSync(join(dirname(link), entryName), { recursive: true, force: true });
    }
  }
}

/** The folder a bundle symlink points at, or null when it is not a symlink. */
function linkTarget(path) {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}
