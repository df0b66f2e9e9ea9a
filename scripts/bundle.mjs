#!/usr/bin/env node
// Bundles each binary into a few ESM files after `tsc -b`: one file to load starts far faster
// than hundreds of modules (DESIGN §14). Commands import their heavy libraries lazily, and
// code splitting keeps those in chunks that load only when a command needs them.
import { existsSync, readFileSync, rmSync } from "node:fs";
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
  rmSync(`${root}${outdir}`, { recursive: true, force: true });
  await build({
    entryPoints: { main: `${root}${entry}` },
    outdir: `${root}${outdir}`,
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
}
