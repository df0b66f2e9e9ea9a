#!/usr/bin/env node
// `npm run install-cli`: installs `uwf` and every adapter globally from this checkout, packed as
// users get them from the registry. Each public package is packed with `pnpm pack` (its
// prepack runs; `workspace:` ranges become exact versions), then one `npm install -g` of all
// the tarballs, the libraries too: a package's `@united-workforce/*` dependencies are the
// tarballs installed beside it, and our scope's registry is an address that refuses
// connections, so nothing of ours can come from a registry (only third-party dependencies do).
// The PostgreSQL backend comes along with `--postgres`, or when the prefix already holds it
// (then it must move to the same version as uwf).
//
// npm's own prefix is honoured (`npm_config_prefix`, .npmrc, `-- --prefix <dir>`). Builds first
// when the build is missing or older than the sources. Exits 1 saying what failed.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join, relative, resolve } from "node:path";
import {
  fail,
  NOWHERE,
  packPackages,
  pinnedPnpm,
  publicPackages,
  REPO_ROOT,
  run,
  runToEnd,
  SCOPE,
  ScriptFailed,
} from "./lib/packages.mjs";

const POSTGRES = `${SCOPE}/store-postgres`;
const USAGE = `Usage: npm run install-cli [-- [--prefix <dir>] [--postgres]]

Installs uwf and every adapter (uwf-mock, uwf-replay, uwf-builtin, uwf-claude-code, uwf-codex,
uwf-acp, uwf-hermes) globally from this checkout, packed as they are published.

  --prefix <dir>  install under <dir> (binaries in <dir>/bin) instead of npm's global prefix;
                  npm_config_prefix=<dir> does the same
  --postgres      also install ${POSTGRES}, the PostgreSQL store
`;

function say(text) {
  console.log(`install-cli: ${text}`);
}

let work;
try {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const pnpm = pinnedPnpm();
  buildIfNeeded(pnpm);

  const prefix = options.prefix ?? run("npm", ["prefix", "--global"]).trim();
  const { bin, lib } = globalLayout(prefix);
  const all = publicPackages();
  const withPostgres = options.postgres || isInstalled(lib, POSTGRES);
  const packages = all.filter((p) => p.name !== POSTGRES || withPostgres);

  work = mkdtempSync(join(tmpdir(), "uwf-install-cli-"));
  say(`packing ${packages.length} packages`);
  packPackages(packages, work, pnpm);

  say(`installing them into ${prefix}`);
  const npmArgs = [
    "install",
    "--global",
    "--no-fund",
    "--no-audit",
    "--no-update-notifier",
    "--prefer-offline",
    // Its errors are shown on failure even under `npm run -s`, whose silence children inherit.
    "--loglevel=error",
    // npm looks each of our packages up in the registry although a tarball satisfies it: the
    // lookups must fail at once (NOWHERE), and not be retried after waiting 10 s and more.
    `--${SCOPE}:registry=${NOWHERE}`,
    "--fetch-retries=0",
    ...(options.prefix ? ["--prefix", options.prefix] : []),
    ...packages.map((p) => p.tarball),
  ];
  // From the temp folder: no project of ours (its .npmrc, its workspaces) has a say.
  const installed = runToEnd("npm", npmArgs, { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  if (installed.status !== 0) {
    const output = `${installed.stdout}${installed.stderr}`.trimEnd();
    const denied = /EACCES|EPERM/.test(output)
      ? `\nYou may not write to ${prefix}: install elsewhere with \`npm run install-cli -- --prefix ~/.local\` (binaries in ~/.local/bin), or set npm's prefix (\`npm config set prefix ~/.local\`).`
      : "";
    fail(
      `npm install --global exited ${installed.status ?? installed.signal}:\n${output}${denied}`,
    );
  }
  checkInstalled(lib, packages);

  report({ packages, prefix, bin });
} catch (error) {
  const message = error instanceof ScriptFailed ? error.message : (error?.stack ?? String(error));
  console.error(`install-cli FAILED: ${message}`);
  process.exitCode = 1;
} finally {
  if (work) rmSync(work, { recursive: true, force: true });
}

/** `--prefix <dir>` (relative to where npm was started), `--postgres`, `--help`. */
function parseArgs(args) {
  const options = { prefix: undefined, postgres: false, help: false };
  const cwd = process.env.INIT_CWD ?? process.cwd();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") options.help = true;
    else if (arg === "--postgres") options.postgres = true;
    else if (arg === "--prefix" || arg.startsWith("--prefix=")) {
      const value = arg === "--prefix" ? args[++i] : arg.slice("--prefix=".length);
      if (!value) fail(`--prefix needs a folder\n\n${USAGE}`);
      options.prefix = resolve(cwd, value);
    } else fail(`unknown argument ${arg}\n\n${USAGE}`);
  }
  return options;
}

/**
 * Run `pnpm build` when a package's build output is missing or older than its sources (every
 * build rewrites every bundle, so the oldest bundle dates the last build).
 */
function buildIfNeeded(pnpm) {
  if (!isDirectory(join(REPO_ROOT, "node_modules", ".pnpm"))) {
    fail(
      "this checkout's dependencies are not installed: run `npm run setup` first (it installs them with the pinned pnpm and builds), then `npm run install-cli` again.",
    );
  }
  const reason = staleBuild(publicPackages());
  if (!reason) return;
  say(`building first (${reason}): pnpm build`);
  const build = runToEnd(pnpm[0], [...pnpm.slice(1), "build"], {
    cwd: REPO_ROOT,
    stdio: "inherit",
  });
  if (build.status !== 0)
    fail("`pnpm build` failed (its errors are above): fix them and run again.");
}

/** Why the build must run first, or null when it is up to date. */
function staleBuild(packages) {
  const outputs = [];
  for (const { dir, pkg } of packages) {
    outputs.push(join(dir, pkg.main ?? "dist/index.js"));
    // Each bin's bundle (the folder its script boots from) and a `./bundle` export.
    for (const target of Object.values(pkg.bin ?? {})) {
      const script = readFileSync(join(dir, target), "utf8");
      const folder = /\.\.\/(dist\/[\w-]+)\/boot\.cjs/.exec(script)?.[1] ?? "dist/bundle";
      outputs.push(join(dir, folder, "main.cjs"));
    }
    if (pkg.exports?.["./bundle"]) outputs.push(join(dir, pkg.exports["./bundle"]));
  }
  let oldest = Number.POSITIVE_INFINITY;
  for (const output of outputs) {
    const time = modified(output);
    if (time === null) return `${relative(REPO_ROOT, output)} is missing`;
    if (output.endsWith(".cjs")) oldest = Math.min(oldest, time);
  }
  const sources = [
    ...packages.flatMap(({ dir }) => [join(dir, "package.json"), ...files(join(dir, "src"))]),
    join(REPO_ROOT, "scripts", "bundle.mjs"),
    join(REPO_ROOT, "scripts", "lib", "boot.cjs"),
  ];
  const newer = sources.find((source) => (modified(source) ?? 0) > oldest);
  return newer ? `${relative(REPO_ROOT, newer)} changed since the last build` : null;
}

/** Every file under `dir` but tests. */
function files(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !/\.test\.[cm]?[jt]sx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

/** Where npm puts global binaries and packages under `prefix` (on Linux and macOS). */
function globalLayout(prefix) {
  return { bin: join(prefix, "bin"), lib: join(prefix, "lib", "node_modules") };
}

function isInstalled(lib, name) {
  return modified(join(lib, name, "package.json")) !== null;
}

/** Each package is installed once, at the top of the prefix, at the version packed. */
function checkInstalled(lib, packages) {
  const problems = [];
  for (const pkg of packages) {
    const path = join(lib, pkg.name, "package.json");
    const version = modified(path) === null ? null : JSON.parse(readFileSync(path, "utf8")).version;
    if (version !== pkg.version) {
      problems.push(`${pkg.name} is ${version ?? "not installed"} in ${lib}, not ${pkg.version}`);
    }
    const nested = join(lib, pkg.name, "node_modules", SCOPE);
    if (isDirectory(nested)) problems.push(`${pkg.name} holds copies of its own in ${nested}`);
  }
  if (problems.length > 0) fail(`npm install --global: ${problems.join("; ")}`);
}

/** What was installed, where `uwf` is, and whether the shell finds that one. */
function report({ packages, prefix, bin }) {
  const uwf = join(bin, "uwf");
  const version = run(uwf, ["--version"]).trim();
  const withBins = packages.filter((p) => p.pkg.bin);
  const libraries = packages.filter((p) => !p.pkg.bin);
  console.log(`\nInstalled into ${prefix}, version ${version}:`);
  const width = Math.max(...withBins.map((p) => p.name.length));
  for (const pkg of withBins) {
    console.log(`  ${pkg.name.padEnd(width)}  ${Object.keys(pkg.pkg.bin).join(", ")}`);
  }
  console.log(`  and the libraries: ${libraries.map((p) => p.name).join(", ")}`);
  console.log(`\nuwf is ${uwf}`);
  const found = firstOnPath("uwf");
  if (found === uwf) {
    console.log("It is the uwf your shell runs: try `uwf --help`.");
  } else if (found) {
    console.log(`Your shell runs ${found} first: put ${bin} before it on PATH.`);
  } else {
    console.log(`${bin} is not on your PATH: add it, e.g. export PATH="${bin}${delimiter}$PATH"`);
  }
  const names = packages.map((p) => p.name).join(" ");
  console.log(`Remove them with: npm uninstall --global --prefix ${prefix} ${names}`);
}

/**
 * The first `name` on PATH outside this repository (`npm run` puts its node_modules/.bin
 * folders first, where `uwf` is the workspace's own).
 */
function firstOnPath(name) {
  for (const entry of (process.env.PATH ?? "").split(delimiter)) {
    if (
      entry === "" ||
      isInside(resolve(entry), REPO_ROOT) ||
      /node_modules[\\/]\.bin$/.test(entry)
    ) {
      continue;
    }
    const path = join(resolve(entry), name);
    if (modified(path) !== null) return path;
  }
  return null;
}

function isInside(path, dir) {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The file's modification time, or null when there is none. */
function modified(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}
