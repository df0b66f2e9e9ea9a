// The repository's public packages and how they are packed as users get them from the registry:
// shared by `npm run install-cli` (scripts/install-cli.mjs), the pack check
// (scripts/pack-check.mjs) and `npm run setup` (the pinned pnpm).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const SCOPE = "@united-workforce";
/** An address that refuses connections: our scope's registry while our tarballs are installed. */
export const NOWHERE = "http://127.0.0.1:9/";

/** A step of a script that cannot go on; its message says what broke. */
export class ScriptFailed extends Error {}

export function fail(message) {
  throw new ScriptFailed(message);
}

/** Run a program (no shell) and return its stdout; any failure stops the script, naming it. */
export function run(command, args, options = {}) {
  const result = runToEnd(command, args, options);
  if (result.status !== 0) {
    const shown = [command, ...args].join(" ");
    fail(`${shown} exited ${result.status ?? result.signal}\n${result.stdout}${result.stderr}`);
  }
  return result.stdout;
}

/** Run a program (no shell) whatever its exit: its status, stdout and stderr. */
export function runToEnd(command, args, options = {}) {
  const result = spawnSync(command, args, {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...options,
  });
  if (result.error) fail(`${[command, ...args].join(" ")}: ${result.error.message}`);
  return result;
}

/**
 * The pnpm that package.json's `packageManager` pins, as a command and its first arguments:
 * `pnpm` when that version is on PATH, else the same version through npx.
 */
export function pinnedPnpm() {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  const version = manifest.packageManager.split("@")[1];
  const installed = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  return installed.status === 0 && installed.stdout.trim() === version
    ? ["pnpm"]
    : ["npx", "--yes", `pnpm@${version}`];
}

/** Every package under packages/ that is not private, with its folder, version and manifest. */
export function publicPackages() {
  const found = [];
  for (const dir of readdirSync(join(REPO_ROOT, "packages")).sort()) {
    const path = join(REPO_ROOT, "packages", dir, "package.json");
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(path, "utf8"));
    } catch {
      continue;
    }
    if (pkg.private) continue;
    found.push({
      name: pkg.name,
      version: pkg.version,
      dir: join(REPO_ROOT, "packages", dir),
      pkg,
    });
  }
  if (found.length === 0) fail("no public package under packages/");
  return found;
}

/**
 * Pack `packages` into the empty folder `destination` with one `pnpm pack` over all of them, as
 * `pnpm publish` would (each package's prepack runs; `workspace:` ranges become the exact
 * versions), and set each one's `tarball`. Needs a build (prepack fails without the bundles).
 */
export function packPackages(packages, destination, pnpm = pinnedPnpm()) {
  const filters = packages.flatMap((p) => ["--filter", p.name]);
  run(pnpm[0], [...pnpm.slice(1), ...filters, "pack", "--pack-destination", destination], {
    cwd: REPO_ROOT,
  });
  for (const pkg of packages) {
    // pnpm's name for it: `@scope/name` 1.2.3 → scope-name-1.2.3.tgz.
    const tarball = join(
      destination,
      `${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`,
    );
    if (!existsSync(tarball)) fail(`pnpm pack made no ${tarball} for ${pkg.name}`);
    pkg.tarball = tarball;
  }
  const made = readdirSync(destination).length;
  if (made !== packages.length)
    fail(`pnpm pack made ${made} tarballs for ${packages.length} packages`);
}
