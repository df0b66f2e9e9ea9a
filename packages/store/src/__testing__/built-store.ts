import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** For tests only: where the built store lives, for tests that run it in other processes. */
export const storeSrcDir = join(dirname(fileURLToPath(import.meta.url)), "..");
export const storeDistDir = join(storeSrcDir, "..", "dist");

/** Worker processes import the built store, so it must exist and be newer than its sources. */
export function assertBuiltStoreIsFresh(): void {
  const buildInfo = join(storeDistDir, ".tsbuildinfo");
  let builtAt: number;
  try {
    builtAt = statSync(buildInfo).mtimeMs;
  } catch {
    throw new Error(
      `${storeDistDir} is missing: run \`pnpm build\` (or \`npx tsc -b packages/store\`) first`,
    );
  }
  const stale = sourceFiles(storeSrcDir).find((file) => statSync(file).mtimeMs > builtAt);
  if (stale !== undefined) {
    throw new Error(
      `${stale} is newer than ${storeDistDir}: run \`npx tsc -b packages/store\` first`,
    );
  }
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__testing__" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}
