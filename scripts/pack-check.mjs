#!/usr/bin/env node
// Packs every public package, installs the tarballs into a temp prefix, and runs the installed
// `uwf` from outside the repository as a user would: --version, workflow validate, a whole
// mock thread, a uwf-builtin thread against the fake model, and `uwf dashboard` serving its
// browser script and stylesheet. Run after `pnpm build` (`.ci/run` does). Exits non-zero saying
// what broke.
//
// The PostgreSQL backend is installed in a second step, as its users add it beside uwf: first
// the install without it must hold no `pg` and answer a postgres:// store with the error that
// says how to install it; then, with it, a thread runs on a throwaway PostgreSQL server.
//
// Our packages are not published, so npm must take every @united-workforce/* package from the
// tarballs: `npm install -g` looks each global package's dependencies up in the registry, so
// the tarballs are the `file:` dependencies of a temp project instead, `overrides` sends every
// transitive @united-workforce/* request to them, and the scope's registry is an address that
// refuses connections, so any registry lookup of ours fails loudly (docs/decisions/pack-check.md).
import { execFile, spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { buildDashboardAssets } from "./lib/dashboard-assets.mjs";
import {
  fail,
  NOWHERE,
  packPackages,
  publicPackages,
  REPO_ROOT as root,
  run,
  runToEnd,
  SCOPE,
  ScriptFailed,
} from "./lib/packages.mjs";

const work = mkdtempSync(join(tmpdir(), "uwf-pack-check-"));
const started = Date.now();

function step(text) {
  console.log(`pack-check: ${text}`);
}

const POSTGRES = `${SCOPE}/store-postgres`;

try {
  const packages = publicPackages();
  step(`packing ${packages.map((p) => p.name).join(", ")}`);
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs);
  packPackages(packages, tarballs);
  for (const pkg of packages) checkTarball(pkg);

  const prefix = join(work, "prefix");
  mkdirSync(prefix);
  const withoutPostgres = packages.filter((p) => p.name !== POSTGRES);
  step(`installing the tarballs but ${POSTGRES} into a temp prefix`);
  install(prefix, withoutPostgres);
  checkInstalled(prefix, withoutPostgres);
  const pgCopies = installedPaths(prefix, "pg");
  if (pgCopies.length > 0) fail(`the install without ${POSTGRES} holds pg: ${pgCopies.join(", ")}`);

  step("running the installed uwf outside the repository");
  const outside = join(work, "outside");
  const home = join(work, "uwf-home");
  mkdirSync(outside);
  mkdirSync(home);
  copyFileSync(join(root, "examples/hello.yaml"), join(outside, "hello.yaml"));
  copyFileSync(join(root, "examples/scenarios/hello.yaml"), join(outside, "hello-scenario.yaml"));
  const bin = join(prefix, "node_modules", ".bin");
  const env = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("UWF_") && !name.startsWith("npm_") && name !== "NODE_PATH") {
      env[name] = value;
    }
  }
  // Only the install's binaries: nothing on PATH may lead back into the repository (pnpm
  // scripts put its node_modules/.bin first).
  const outsideRepo = (entry) => entry !== "" && !isInside(resolve(entry), root);
  env.PATH = [bin, dirname(process.execPath), ...(process.env.PATH ?? "").split(delimiter)]
    .filter(outsideRepo)
    .join(delimiter);
  Object.assign(env, { UWF_HOME: home, HOME: work });
  const uwf = (...args) => run(join(bin, "uwf"), args, { cwd: outside, env });

  const version = uwf("--version").trim();
  const cli = packages.find((p) => p.name === `${SCOPE}/cli`);
  if (version !== cli.version) fail(`uwf --version printed ${version}, expected ${cli.version}`);
  uwf("workflow", "validate", "hello.yaml");
  uwf("workflow", "add", "hello.yaml");
  const thread = uwf("thread", "start", "hello", "-p", "Greet Ada, who joins today.").trim();
  uwf("thread", "exec", thread, "-c", "5", "--agent", "uwf-mock --scenario hello-scenario.yaml");
  const shown = JSON.parse(uwf("thread", "show", thread, "--format", "json"));
  if (shown.status !== "completed" || shown.steps !== 1) {
    fail(`the thread ended ${shown.status} after ${shown.steps} steps, not completed after 1`);
  }
  const transcript = uwf("thread", "read", thread);
  if (!transcript.includes("Hello, Ada! Welcome to the team.")) {
    fail(`uwf thread read does not show the greeting:\n${transcript}`);
  }
  // The OTLP encoders load from their bundle chunk (otlp.cjs) as installed.
  const trace = JSON.parse(uwf("thread", "trace", thread));
  const spans = trace.resourceSpans?.[0]?.scopeSpans?.[0]?.spans ?? [];
  if (spans.length !== 2) fail(`uwf thread trace gave ${spans.length} spans, not 2`);
  // Every adapter binary starts from its installed bundle (its own dependencies resolve).
  for (const pkg of packages) {
    for (const name of Object.keys(pkg.pkg.bin ?? {})) {
      if (name === "uwf") continue;
      const help = run(join(bin, name), ["--help"], { cwd: outside, env });
      if (!help.includes(`Usage: ${name}`)) fail(`${name} --help printed no usage:\n${help}`);
    }
  }
  // The ACP adapter's two binaries also know their version and presets.
  for (const name of ["uwf-acp", "uwf-hermes"]) {
    const printed = run(join(bin, name), ["--version"], { cwd: outside, env }).trim();
    if (printed !== cli.version)
      fail(`${name} --version printed ${printed}, expected ${cli.version}`);
    const help = run(join(bin, name), ["--help"], { cwd: outside, env });
    if (!help.includes("--preset <name>")) fail(`${name} --help does not list --preset:\n${help}`);
  }
  await checkBuiltin({ bin, home, outside, env, uwf, version: cli.version });
  await checkDashboard({ bin, prefix, outside, env });

  checkPostgresMissing({ bin, outside, env, thread, version: cli.version });
  step(`installing ${POSTGRES} beside them`);
  install(prefix, packages);
  checkInstalled(prefix, packages);
  const pgPaths = installedPaths(prefix, "pg");
  if (pgPaths.length === 0 || pgPaths.some((path) => !path.startsWith(`node_modules/${POSTGRES}/`)))
    fail(
      `pg should be installed with ${POSTGRES} only, and is at: ${pgPaths.join(", ") || "none"}`,
    );
  await checkPostgres({ bin, outside, env });
  step(`ok: ${packages.length} packages installed and ran (${Date.now() - started} ms)`);
} catch (error) {
  const message = error instanceof ScriptFailed ? error.message : (error?.stack ?? String(error));
  console.error(`pack-check FAILED: ${message}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * The installed uwf-builtin answers --version, then runs a hello thread against the repository's
 * fake model (served from this process, so the command runs asynchronously): it must find every
 * module it loads from its own install.
 */
async function checkBuiltin({ bin, home, outside, env, uwf, version }) {
  step("running the installed uwf-builtin against the fake model");
  const builtin = run(join(bin, "uwf-builtin"), ["--version"], { cwd: outside, env }).trim();
  if (builtin !== version) fail(`uwf-builtin --version printed ${builtin}, expected ${version}`);
  const testUtils = join(root, "packages/test-utils/dist/index.js");
  const { startFakeLlm } = await import(pathToFileURL(testUtils).href);
  const greeting = "Hello, Bo! This came from uwf-builtin.";
  const llm = await startFakeLlm({
    script: { steps: [{ text: `---\n$status: done\ngreeting: ${greeting}\n---\n${greeting}\n` }] },
  });
  try {
    const config = {
      providers: { fake: { baseUrl: llm.baseUrl, apiKey: "sk-pack-check" } },
      models: { fake: { provider: "fake", name: "fake-model" } },
    };
    writeFileSync(join(home, "config.yaml"), JSON.stringify(config), { mode: 0o600 });
    const thread = uwf("thread", "start", "hello", "-p", "Greet Bo.").trim();
    const exec = promisify(execFile);
    const args = ["thread", "exec", thread, "--agent", "uwf-builtin --model fake"];
    try {
      await exec(join(bin, "uwf"), args, { cwd: outside, env });
    } catch (error) {
      fail(`uwf ${args.join(" ")} exited ${error.code}\n${error.stdout}${error.stderr}`);
    }
    if (!uwf("thread", "read", thread).includes(greeting)) {
      fail("the uwf-builtin thread's transcript does not show the model's greeting");
    }
  } finally {
    await llm.close();
  }
}

/**
 * The installed `uwf dashboard` serves the browser script and stylesheet built from this
 * repository's sources, byte for byte, from its bundle: the installed package's sources of them
 * are removed first, so nothing can have been read from a file.
 */
async function checkDashboard({ bin, prefix, outside, env }) {
  step("serving the installed uwf dashboard's script and stylesheet");
  const { script, style } = await buildDashboardAssets();
  rmSync(join(prefix, "node_modules", SCOPE, "cli", "src", "dashboard"), { recursive: true });
  const dashboard = spawn(join(bin, "uwf"), ["dashboard"], {
    cwd: outside,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => dashboard.once("exit", resolve));
  try {
    const url = await printedUrl(dashboard);
    const headers = { authorization: `Bearer ${new URL(url).searchParams.get("token")}` };
    for (const [path, type, built] of [
      ["/assets/app.js", "text/javascript", script],
      ["/assets/style.css", "text/css", style],
    ]) {
      const response = await fetch(new URL(path, url), { headers });
      const served = await response.text();
      const servedType = response.headers.get("content-type") ?? "";
      if (response.status !== 200 || !servedType.startsWith(`${type};`)) {
        fail(`uwf dashboard answered ${path} with ${response.status} (${servedType}):\n${served}`);
      }
      if (served !== built) {
        fail(
          `uwf dashboard serves a ${path} (${served.length} characters) that is not the one built from the sources (${built.length})`,
        );
      }
    }
  } finally {
    dashboard.kill("SIGINT");
    await exited;
  }
}

/** The URL `uwf dashboard` prints on stderr once it serves (it fails if the process ends first). */
function printedUrl(child) {
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(
      () => reject(new ScriptFailed(`uwf dashboard printed no URL in 20 s:\n${stderr}`)),
      20_000,
    );
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(stderr)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new ScriptFailed(`uwf dashboard exited ${code ?? signal} before serving:\n${stderr}`));
    });
  });
}

/**
 * With a postgres:// store and no @united-workforce/store-postgres, uwf and an adapter stop at
 * once (exit 1) saying the package is not installed and the command that installs it, the
 * URL's password masked.
 */
function checkPostgresMissing({ bin, outside, env, thread, version }) {
  step(`a postgres:// store without ${POSTGRES}: the error says how to install it`);
  const pgEnv = { ...env, UWF_STORE: "postgres://uwf:s3cret@127.0.0.1:1/uwf" };
  const message = `the store postgres://uwf:****@127.0.0.1:1/uwf is PostgreSQL, and ${POSTGRES} is not installed`;
  const install = `npm install -g ${POSTGRES}@${version}`;
  const list = runToEnd(join(bin, "uwf"), ["thread", "list", "--format", "json"], {
    cwd: outside,
    env: pgEnv,
  });
  const error = jsonError(list.stderr);
  if (
    list.status !== 1 ||
    error?.code !== "STORE_BACKEND_MISSING" ||
    error.message !== message ||
    !error.hint?.includes(install)
  ) {
    fail(
      `uwf thread list on a postgres:// store without ${POSTGRES} exited ${list.status}:\n${list.stderr}`,
    );
  }
  const args = ["--thread", thread, "--role", "greeter", "--prompt", "Greet Ada."];
  const adapter = runToEnd(join(bin, "uwf-mock"), [...args, "--scenario", "hello-scenario.yaml"], {
    cwd: outside,
    env: pgEnv,
  });
  const said = adapter.stderr;
  if (
    adapter.status !== 1 ||
    !said.includes(message) ||
    !said.includes(install) ||
    said.includes("s3cret")
  ) {
    fail(`uwf-mock on a postgres:// store without ${POSTGRES} exited ${adapter.status}:\n${said}`);
  }
}

/**
 * With @united-workforce/store-postgres installed beside uwf, a whole mock thread runs on a
 * throwaway PostgreSQL server (uwf runs the package's bundle from the install; uwf-mock uses the
 * step store uwf serves it),
 * nothing of it lands in UWF_HOME, and an unreachable server is STORE_UNAVAILABLE: an error from
 * the backend's own copy of uwf's packages keeps its code in the bundled binary that reports it.
 */
async function checkPostgres({ bin, outside, env }) {
  step(`running a thread on PostgreSQL with ${POSTGRES} installed`);
  const testUtils = join(root, "packages/test-utils/dist/index.js");
  const { startPostgres } = await import(pathToFileURL(testUtils).href);
  const server = await startPostgres();
  try {
    const home = join(work, "uwf-home-postgres");
    mkdirSync(home);
    const pgEnv = { ...env, UWF_HOME: home, UWF_STORE: await server.createDatabase() };
    const uwf = (...args) => run(join(bin, "uwf"), args, { cwd: outside, env: pgEnv });
    uwf("workflow", "add", "hello.yaml");
    const thread = uwf("thread", "start", "hello", "-p", "Greet Ada, who joins today.").trim();
    const agent = "uwf-mock --scenario hello-scenario.yaml";
    const exec = runToEnd(
      join(bin, "uwf"),
      ["thread", "exec", thread, "-c", "5", "--agent", agent],
      {
        cwd: outside,
        env: pgEnv,
      },
    );
    if (exec.status !== 0 || /warning/i.test(exec.stderr)) {
      fail(`uwf thread exec on PostgreSQL exited ${exec.status}:\n${exec.stdout}${exec.stderr}`);
    }
    const shown = JSON.parse(uwf("thread", "show", thread, "--format", "json"));
    if (shown.status !== "completed" || shown.steps !== 1) {
      fail(`the PostgreSQL thread ended ${shown.status} after ${shown.steps} steps`);
    }
    if (!uwf("thread", "read", thread).includes("Hello, Ada! Welcome to the team.")) {
      fail("uwf thread read on PostgreSQL does not show the greeting");
    }
    const local = ["cas", "threads", "workflows"].filter((name) => existsSync(join(home, name)));
    if (local.length > 0) fail(`a PostgreSQL store wrote ${local.join(", ")} under UWF_HOME`);
    // uwf ran the package's own bundle (boot.cjs's importPackage), with its code cache; uwf-mock
    // read and wrote through the step store uwf served it, so it never loaded the package.
    if (!existsSync(join(home, "cache/code", "uwf.store-postgres"))) {
      fail(`no code cache of ${POSTGRES}'s bundle for uwf`);
    }
    if (existsSync(join(home, "cache/code", "uwf-mock.store-postgres"))) {
      fail(`uwf-mock loaded ${POSTGRES} itself instead of using the step store uwf served`);
    }

    const unreachable = runToEnd(join(bin, "uwf"), ["thread", "list", "--format", "json"], {
      cwd: outside,
      env: { ...pgEnv, UWF_STORE: "postgres://uwf@127.0.0.1:1/uwf" },
    });
    if (unreachable.status !== 1 || jsonError(unreachable.stderr)?.code !== "STORE_UNAVAILABLE") {
      fail(
        `uwf on an unreachable PostgreSQL server exited ${unreachable.status}:\n${unreachable.stderr}`,
      );
    }
  } finally {
    await server.stop();
  }
}

/** The `{ error }` document uwf printed on stderr in json mode, or null. */
function jsonError(stderr) {
  try {
    return JSON.parse(stderr).error ?? null;
  } catch {
    return null;
  }
}

/**
 * Install `packages` from their tarballs into the project at `prefix` (again: what is there
 * already stays). npm must take every @united-workforce/* package from the tarballs (see the top).
 */
function install(prefix, packages) {
  const manifest = {
    name: "uwf-pack-check",
    private: true,
    dependencies: Object.fromEntries(packages.map((p) => [p.name, `file:${p.tarball}`])),
    overrides: Object.fromEntries(packages.map((p) => [p.name, `$${p.name}`])),
  };
  writeJson(join(prefix, "package.json"), manifest);
  run(
    "npm",
    [
      "install",
      "--no-fund",
      "--no-audit",
      "--no-update-notifier",
      "--prefer-offline",
      "--fetch-retries=0",
      // Each package gets its own dependencies under it, nothing hoisted: a bundle that needs a
      // module its package does not declare fails here, as under pnpm or a global install.
      "--install-strategy=nested",
      `--${SCOPE}:registry=${NOWHERE}`,
    ],
    { cwd: prefix },
  );
}

/** Where the install at `prefix` holds package `name` (paths in its lock file). */
function installedPaths(prefix, name) {
  const lock = JSON.parse(readFileSync(join(prefix, "package-lock.json"), "utf8"));
  return Object.keys(lock.packages ?? {}).filter((path) => path.endsWith(`node_modules/${name}`));
}

/** What a tarball holds: its metadata, no test or build leftovers, and maps that resolve. */
function checkTarball(pkg) {
  const files = run("tar", ["tzf", pkg.tarball])
    .split("\n")
    .filter((line) => line !== "" && !line.endsWith("/"))
    .map((line) => line.replace(/^package\//, ""));
  const has = new Set(files);
  const problems = [];
  for (const name of ["package.json", "README.md", "LICENSE"]) {
    if (!has.has(name)) problems.push(`has no ${name}`);
  }
  const { pkg: meta } = pkg;
  for (const field of ["description", "license", "repository", "engines", "files"]) {
    if (meta[field] === undefined) problems.push(`package.json has no "${field}"`);
  }
  for (const [name, target] of Object.entries(meta.bin ?? {})) {
    if (!has.has(target.replace(/^\.\//, ""))) problems.push(`bin ${name} (${target}) is missing`);
  }
  // The bundle the binaries run of a package installed beside them (boot.cjs's importPackage).
  const bundle = meta.exports?.["./bundle"];
  if (bundle !== undefined && !has.has(bundle.replace(/^\.\//, ""))) {
    problems.push(`its ./bundle export (${bundle}) is missing`);
  }
  for (const file of files) {
    if (/\.test\.[cm]?[jt]s$|(^|\/)__(fixtures|testing)__\/|\.tsbuildinfo$/.test(file)) {
      problems.push(`holds ${file}`);
    }
  }
  // Each bin's bundle (the folder its boot.cjs is in: `dist/bundle`, uwf-replay's
  // `dist/replay-bundle`), and the chunks boot.cjs loads (yaml; uwf's OTLP encoders).
  const chunks = meta.name === "@united-workforce/cli" ? ["yaml.cjs", "otlp.cjs"] : ["yaml.cjs"];
  for (const target of Object.values(meta.bin ?? {})) {
    const script = readFileSync(join(pkg.dir, target), "utf8");
    const folder = /\.\.\/(dist\/[\w-]+)\/boot\.cjs/.exec(script)?.[1] ?? "dist/bundle";
    for (const file of ["main.cjs", "boot.cjs", ...chunks]) {
      if (!has.has(`${folder}/${file}`)) problems.push(`has no ${folder}/${file}`);
    }
  }
  // Each source map's sources must be in the tarball too.
  const maps = files.filter((file) => file.endsWith(".map"));
  if (maps.length > 0) {
    const extracted = join(work, "extract", meta.name);
    mkdirSync(extracted, { recursive: true });
    run("tar", ["xzf", pkg.tarball, "-C", extracted]);
    for (const map of maps) {
      const { sources = [] } = JSON.parse(readFileSync(join(extracted, "package", map), "utf8"));
      for (const source of sources) {
        const target = relative(
          join(extracted, "package"),
          resolve(dirname(join(extracted, "package", map)), source),
        );
        if (!has.has(target.split(sep).join("/")))
          problems.push(`${map} points at missing ${source}`);
      }
    }
  }
  if (problems.length > 0) fail(`${pkg.name} tarball: ${problems.join("; ")}`);
}

/** Every @united-workforce/* package came from our tarballs, once, at the packed version. */
function checkInstalled(prefix, packages) {
  const lock = JSON.parse(readFileSync(join(prefix, "package-lock.json"), "utf8"));
  // Our packages wherever they sit (not the third-party ones nested under them).
  const ours = Object.entries(lock.packages ?? {}).filter(([path]) =>
    /(^|\/)node_modules\/@united-workforce\/[^/]+$/.test(path),
  );
  const problems = [];
  for (const [path, entry] of ours) {
    const pkg = packages.find((p) => path === `node_modules/${p.name}`);
    if (!pkg) {
      problems.push(`${path} is installed (only one top-level copy of each package is expected)`);
    } else if (entry.version !== pkg.version || !fromTarball(prefix, entry.resolved, pkg.tarball)) {
      problems.push(`${path} is ${entry.version} from ${entry.resolved}, not our tarball`);
    }
  }
  for (const pkg of packages) {
    if (!ours.some(([path]) => path === `node_modules/${pkg.name}`)) {
      problems.push(`${pkg.name} is not installed`);
    }
  }
  if (problems.length > 0) fail(`npm install: ${problems.join("; ")}`);
}

/** Whether a lock file's `resolved` (a `file:` path relative to the project) is `tarball`. */
function fromTarball(prefix, resolved, tarball) {
  return (
    typeof resolved === "string" &&
    resolved.startsWith("file:") &&
    resolve(prefix, resolved.slice("file:".length)) === tarball
  );
}

function isInside(path, dir) {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function writeJson(path, value) {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
