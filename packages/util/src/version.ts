import { readFileSync } from "node:fs";

// The bundler (scripts/bundle.mjs) writes the release's version in; one version for every package.
declare const __UWF_VERSION__: string | undefined;

/**
 * The version of the package that `moduleUrl()` (a module's `import.meta.url`) belongs to: the
 * bundler's, else, for unbundled code such as tests, the package.json one folder up from the
 * module (`src/` or `dist/`). A function, so that a bundle never computes the URL.
 */
export function packageVersion(moduleUrl: () => string): string {
  if (typeof __UWF_VERSION__ === "string") return __UWF_VERSION__;
  const manifest = new URL("../package.json", moduleUrl());
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}
