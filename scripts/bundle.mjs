#!/usr/bin/env node
// Bundles each binary into one CommonJS file after `tsc -b` (DESIGN §14): one file starts far
// faster than hundreds of ES modules, and a CommonJS script is what `dist/bundle/boot.cjs`
// (copied from scripts/lib/boot.cjs) can compile with V8's code cache, which Node 20 offers for
// no ES module. Commands import their heavy libraries with `import()`, which esbuild turns into
// lazily run module initialisers, so a command still runs only the code it needs.
//
// Each bundle's first line is `// uwf-bundle <content hash>`: boot.cjs keys its code cache on
// it. The rest is the code wrapped as a CommonJS module function (boot.cjs's `wrap`), which
// boot.cjs compiles as read. The bundle must be ASCII (checked here) so that boot.cjs can read it
// as latin1. What few processes need sits beside it in a chunk (`yaml.cjs`), built the same way
// and loaded by boot.cjs's `loadChunk` with a code cache of its own. A package its users install
// beside uwf (`@united-workforce/store-postgres`, with the `pg` driver) stays out of every bundle
// and gets one of its own, which boot.cjs's `importPackage` finds where it is installed.
//
// `dist/bundle` is updated in place, each file replaced by one rename, so a running `uwf`
// (which read its whole bundle at start) is never disturbed by a rebuild.
//
// `node scripts/bundle.mjs --prune <dir>` (each binary package's prepack) builds nothing and
// removes whatever else is in the bundle folder, so a package ships exactly one build.
import { createHash } from "node:crypto";
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
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { ASSETS_MODULE, assetsModule, buildDashboardAssets } from "./lib/dashboard-assets.mjs";
import { withLock } from "./lib/file-lock.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const BOOT = readFileSync(`${root}scripts/lib/boot.cjs`, "utf8");
const { wrap } = createRequire(import.meta.url)("./lib/boot.cjs");
/** Parts of the bundle in files of their own, loaded through boot.cjs's `loadChunk` on demand. */
const CHUNKS = { yaml: { from: "packages/store" } };
const KEEP = new Set(["main.cjs", "boot.cjs", ...Object.keys(CHUNKS).map((name) => `${name}.cjs`)]);

const cliVersion = JSON.parse(readFileSync(`${root}packages/cli/package.json`, "utf8")).version;

const targets = [
  { entry: "packages/cli/dist/main.js", outdir: "packages/cli/dist/bundle" },
  { entry: "packages/agent-mock/dist/main.js", outdir: "packages/agent-mock/dist/bundle" },
  {
    entry: "packages/agent-mock/dist/replay-main.js",
    outdir: "packages/agent-mock/dist/replay-bundle",
  },
  { entry: "packages/agent-builtin/dist/main.js", outdir: "packages/agent-builtin/dist/bundle" },
  { entry: "packages/agent-acp/dist/main.js", outdir: "packages/agent-acp/dist/bundle" },
  {
    entry: "packages/agent-claude-code/dist/main.js",
    outdir: "packages/agent-claude-code/dist/bundle",
  },
  { entry: "packages/agent-codex/dist/main.js", outdir: "packages/agent-codex/dist/bundle" },
];

/**
 * Packages installed beside uwf (INSTALLED_BESIDE below) ship a bundle of their own, the
 * package's `./bundle` export, which the binaries run through boot.cjs's `importPackage` with a
 * code cache, as they run their own: the PostgreSQL backend and its driver in one file.
 */
const packageTargets = [
  {
    entry: "packages/store-postgres/dist/index.js",
    outdir: "packages/store-postgres/dist/bundle",
  },
];

/**
 * Built-ins that CommonJS dependencies require at load but rarely use, each with ≈ 2–3 ms of
 * every start behind it: commander wants child_process (with net, dgram and the streams) only
 * for subcommands that are separate executables, which uwf has none of; dotenv wants crypto
 * only to decrypt vaults. Here each of them gets the module on first use instead. (ES modules
 * cannot be served this way: esbuild copies their imports' properties at load. Our own code
 * loads such built-ins on first use itself: `nodeCrypto()`, `nodeChildProcess()` in util.)
 */
const LAZY_BUILTINS = { commander: ["child_process"], dotenv: ["crypto"] };

const lazyBuiltins = {
  name: "uwf-lazy-builtins",
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_]+$/ }, ({ path, importer, namespace }) => {
      if (namespace === "uwf-lazy-builtin") return undefined;
      const name = path.replace(/^node:/, "");
      const from =
        /[\\/]node_modules[\\/](?:\.pnpm[\\/][^\\/]+[\\/]node_modules[\\/])?([^\\/]+)[\\/]/.exec(
          importer,
        )?.[1];
      return from && LAZY_BUILTINS[from]?.includes(name)
        ? { path: name, namespace: "uwf-lazy-builtin" }
        : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "uwf-lazy-builtin" }, ({ path }) => ({
      contents: `let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require("node:${path}"))[key] });`,
      loader: "js",
    }));
  },
};

/**
 * Libraries whose module top level every start would run though few starts call them. yaml:
 * 250 KB, ≈ 2 ms, and most starts parse no YAML (`cas get`, `thread show`, a step with no
 * config.yaml), yet the store's config reader, which every store-opening start runs, imports it.
 * dotenv: util's `.env` reader imports it, and every uwf and adapter start runs that reader,
 * while most homes have no `.env`. Our modules' imports of them get a stand-in whose functions
 * load the library on first call; esbuild refuses the build if code imports a name the stand-in
 * lacks.
 */
const LAZY_LIBRARIES = {
  yaml: {
    functions: ["parse", "stringify", "parseDocument", "isAlias", "isMap", "isScalar", "isSeq"],
    // `new LineCounter()` (and the other classes) returns the library's own instance.
    extra: ["LineCounter", "Lexer", "Parser", "Composer"]
      .map((name) => `export function ${name}(...args) { return new (load().${name})(...args); }`)
      .join("\n"),
    resolveDir: `${root}packages/store`,
  },
  dotenv: { functions: ["parse"], extra: "", resolveDir: `${root}packages/util` },
};

const lazyLibraries = {
  name: "uwf-lazy-libraries",
  setup(build) {
    const names = Object.keys(LAZY_LIBRARIES).join("|");
    build.onResolve({ filter: new RegExp(`^(${names})$`) }, ({ path, importer, namespace }) =>
      namespace === "uwf-lazy-library" || /[\\/]node_modules[\\/]/.test(importer)
        ? undefined
        : { path, namespace: "uwf-lazy-library" },
    );
    build.onLoad({ filter: /.*/, namespace: "uwf-lazy-library" }, ({ path }) => {
      const { functions, extra, resolveDir } = LAZY_LIBRARIES[path];
      return {
        contents: [
          `let library; const load = () => (library ??= require(${JSON.stringify(path)}));`,
          ...functions.map(
            (name) => `export function ${name}(...args) { return load().${name}(...args); }`,
          ),
          extra,
        ].join("\n"),
        loader: "js",
        resolveDir,
      };
    });
  },
};

/**
 * The built-in node schemas' validators, compiled now rather than in every process: the store's
 * `builtin-validators.js` (an empty map as a library) becomes a map from schema hash to the
 * validator's CommonJS code as a function. It is the code the disk cache would hold, made by the
 * store's own `standaloneValidatorCode`, so validation results are the same either way.
 */
const builtinValidators = {
  name: "builtin-validators",
  setup(b) {
    b.onLoad({ filter: /store[\\/]dist[\\/]schemas[\\/]builtin-validators\.js$/ }, async () => {
      const { BUILTIN_SCHEMAS, BUILTIN_SCHEMA_HASHES } = await import(
        `${root}packages/protocol/dist/index.js`
      );
      const { standaloneValidatorCode } = await import(
        `${root}packages/store/dist/schemas/validator-cache.js`
      );
      const entries = Object.entries(BUILTIN_SCHEMAS).map(([kind, schema]) => {
        const code = standaloneValidatorCode(schema);
        if (code === null) throw new Error(`the built-in ${kind} schema has no standalone code`);
        const hash = BUILTIN_SCHEMA_HASHES[kind];
        return `[${JSON.stringify(hash)}, function (require, module, exports) {\n${code}\n}]`;
      });
      return {
        contents: `export const PRECOMPILED_VALIDATORS = new Map([\n${entries.join(",\n")}\n]);\n`,
        loader: "js",
      };
    });
  },
};

/**
 * The dashboard's browser script and stylesheet (scripts/lib/dashboard-assets.mjs), built once
 * and embedded as string constants in place of tsc's stand-in `dashboard/assets/index.js`: the
 * server serves them from memory, with no file beside the bundle to find.
 */
let dashboardAssetsBuilt;
const dashboardAssets = {
  name: "dashboard-assets",
  setup(b) {
    b.onLoad({ filter: ASSETS_MODULE }, async () => {
      dashboardAssetsBuilt ??= buildDashboardAssets();
      return { contents: assetsModule(await dashboardAssetsBuilt), loader: "js" };
    });
  },
};

/**
 * The yaml library (the stand-in above loads it) is a chunk of its own: a bundle's code
 * cache holds every function the run that wrote it compiled, and that run is usually a first
 * one, which parses YAML its later runs find in a parse cache (the scenario, the workflow,
 * config.yaml). Inside the bundle, yaml's compiled code would ride in that command's cache for
 * good (uwf-mock's: 455 KB with it, 290 KB without), deserialised at every start that needs
 * none of it. As a chunk, its code is cached apart and read only when YAML is parsed.
 */
const chunks = {
  name: "chunks",
  setup(b) {
    const names = Object.keys(CHUNKS).join("|");
    b.onResolve({ filter: new RegExp(`^(${names})$`) }, (args) => ({
      path: args.path,
      namespace: "uwf-chunk",
    }));
    b.onLoad({ filter: /.*/, namespace: "uwf-chunk" }, (args) => ({
      // `require` is the bundle's own (boot.cjs passes one made for main.cjs): this is the
      // boot.cjs beside it, the one already loaded.
      contents: `module.exports = require("./boot.cjs").loadChunk(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
    b.onResolve({ filter: /^\.\/boot\.cjs$/, namespace: "uwf-chunk" }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

/**
 * Packages a binary loads from where it is installed, never from its bundle: the PostgreSQL
 * backend is installed by its users only, beside uwf (docs/postgres.md), and brings the `pg`
 * driver, which no other install should carry. Our code loads one with `import()` (in the
 * module that holds the loader, e.g. cli's `store-backends.js`); that `import()` becomes a call
 * of boot.cjs's `importPackage`, which resolves the package's own bundle (packageTargets) from
 * the binary's bundle folder up: in a global install, the sibling global package. Any other
 * import of one fails the build.
 */
const INSTALLED_BESIDE = ["@united-workforce/store-postgres"];

const installedBeside = {
  name: "uwf-installed-beside",
  setup(b) {
    const names = INSTALLED_BESIDE.map((name) => name.replace(/[/.]/g, "\\$&")).join("|");
    const dynamicImport = new RegExp(`\\bimport\\(\\s*"(${names})"\\s*\\)`, "g");
    // Only our compiled modules, never a library's.
    b.onLoad({ filter: /[\\/]packages[\\/][\w-]+[\\/]dist[\\/].*\.js$/ }, ({ path }) => {
      const code = readFileSync(path, "utf8");
      const contents = code.replace(dynamicImport, 'require("./boot.cjs").importPackage("$1")');
      return contents === code ? undefined : { contents, loader: "js" };
    });
    b.onResolve({ filter: /^\.\/boot\.cjs$/ }, ({ path }) => ({ path, external: true }));
    b.onResolve({ filter: new RegExp(`^(${names})(/|$)`) }, ({ path, importer }) => ({
      errors: [
        {
          text: `${path} must stay out of the bundle: load it with \`import("${path}")\` (${importer})`,
        },
      ],
    }));
  },
};

/** esbuild's output as a bundle file: ASCII, its content hash on the first line. */
function bundleText(code, name) {
  // As many UTF-8 bytes as characters: every character is ASCII (a pretty bundle keeps comments,
  // which charset: "ascii" does not escape; read as latin1 they only garble comments).
  if (Buffer.byteLength(code) !== code.length && process.env.UWF_BUNDLE_PRETTY !== "1") {
    throw new Error(`${name} is not ASCII: boot.cjs reads it as latin1`);
  }
  const hash = createHash("sha256").update(BOOT).update(code).digest("hex").slice(0, 16);
  // Wrapped here, not by boot.cjs at every start: a wrapper added there makes V8 copy the whole
  // text once more (the concatenation is flattened before compiling).
  return `// uwf-bundle ${hash}\n${wrap(code)}`;
}

const COMMON = {
  write: false,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  // Less to read, decode and deserialise at every start (see
  // docs/decisions/bundles-and-code-cache.md). uwf prints no stack traces; UWF_BUNDLE_PRETTY=1
  // keeps names and esbuild's one-module-per-section layout, for reading profiles and debugging.
  minifyWhitespace: process.env.UWF_BUNDLE_PRETTY !== "1",
  minifyIdentifiers: process.env.UWF_BUNDLE_PRETTY !== "1",
  minifySyntax: true,
  charset: "ascii",
  logLevel: "warning",
  legalComments: "none",
};

/** Each chunk's file text, built once for every binary. */
async function buildChunks() {
  const texts = {};
  for (const [name, { from }] of Object.entries(CHUNKS)) {
    const result = await build({
      ...COMMON,
      stdin: {
        contents: `module.exports = require(${JSON.stringify(name)});`,
        resolveDir: `${root}${from}`,
        loader: "js",
      },
      outfile: `${name}.cjs`,
    });
    texts[name] = bundleText(result.outputFiles[0].text, `${name}.cjs`);
  }
  return texts;
}

const pruneAt = process.argv.indexOf("--prune");
if (pruneAt !== -1) {
  const dir = resolve(process.argv[pruneAt + 1] ?? "dist/bundle");
  if (!existsSync(join(dir, "main.cjs"))) {
    console.error(`${join(dir, "main.cjs")} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
  withLock(`${dir}.lock`, () => removeOthers(dir));
  process.exit(0);
}

const chunkTexts = await buildChunks();
for (const { entry, outdir } of targets) {
  if (!existsSync(`${root}${entry}`)) continue;
  const result = await build({
    ...COMMON,
    entryPoints: [`${root}${entry}`],
    outfile: `${root}${outdir}/main.cjs`,
    plugins: [
      lazyBuiltins,
      lazyLibraries,
      builtinValidators,
      dashboardAssets,
      chunks,
      installedBeside,
    ],
    // `import.meta.url` is computed when read: most starts never need a file URL.
    banner: {
      js: 'var __uwfMeta={get url(){return require("node:url").pathToFileURL(__filename).href}};',
    },
    define: {
      "import.meta.url": "__uwfMeta.url",
      __UWF_VERSION__: JSON.stringify(cliVersion),
    },
  });
  const text = bundleText(result.outputFiles[0].text, `${outdir}/main.cjs`);
  const dir = `${root}${outdir}`;
  withLock(`${dir}.lock`, () => {
    removeOldLayout(dir);
    mkdirSync(dir, { recursive: true });
    writeAtomically(join(dir, "boot.cjs"), BOOT);
    for (const [name, chunk] of Object.entries(chunkTexts)) {
      writeAtomically(join(dir, `${name}.cjs`), chunk);
    }
    writeAtomically(join(dir, "main.cjs"), text);
    removeOthers(dir);
  });
}

for (const { entry, outdir } of packageTargets) {
  if (!existsSync(`${root}${entry}`)) continue;
  // Everything in, the driver too: run from the package's folder, the bundle can reach no other
  // module but Node's own.
  const result = await build({
    ...COMMON,
    entryPoints: [`${root}${entry}`],
    outfile: `${root}${outdir}/main.cjs`,
  });
  const text = bundleText(result.outputFiles[0].text, `${outdir}/main.cjs`);
  const dir = `${root}${outdir}`;
  withLock(`${dir}.lock`, () => {
    mkdirSync(dir, { recursive: true });
    writeAtomically(join(dir, "main.cjs"), text);
    removeOthers(dir);
  });
}

/** Remove everything in `dir` but the bundle and its boot file (earlier builds' chunks too). */
function removeOthers(dir) {
  for (const name of readdirSync(dir)) {
    if (!KEEP.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
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

function writeAtomically(path, text) {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  writeFileSync(temp, text);
  renameSync(temp, path);
}

function isSymlink(path) {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
