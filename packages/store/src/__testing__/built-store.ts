import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** For tests only: where the built store lives, for tests that run it in other processes. */
export const storeSrcDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const storeDistDir = join(storeSrcDir, "..", "dist");

/** A package's sources and its build, for tests that run the build in other processes. */
export interface PackageDirs {
  src: string;
  dist: string;
}

/** Worker processes import the built store, so it must exist and be newer than its sources. */
export function assertBuiltStoreIsFresh(): void {
  assertBuiltIsFresh({ src: storeSrcDir, dist: storeDistDir });
}

/** Throw, saying what to build, unless `dist` exists and is newer than every file in `src`. */
export function assertBuiltIsFresh({ src, dist }: PackageDirs): void {
  const buildInfo = join(dist, ".tsbuildinfo");
  const build = `npx tsc -b ${relative(process.cwd(), dirname(dist)) || "."}`;
  let builtAt: number;
  try {
    builtAt = statSync(buildInfo).mtimeMs;
  } catch {
    throw new Error(`${dist} is missing: run \`pnpm build\` (or \`${build}\`) first`);
  }
  const stale = sourceFiles(src).find((file) => statSync(file).mtimeMs > builtAt);
  if (stale !== undefined) {
    throw new Error(`${stale} is newer than ${dist}: run \`${build}\` first`);
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__testing__" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}
