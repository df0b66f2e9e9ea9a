import { readFileSync } from "node:fs";

// Set by the bundler (scripts/bundle.mjs); unbundled code reads the package's own version.
declare const __UWF_VERSION__: string | undefined;

export function adapterVersion(): string {
  if (typeof __UWF_VERSION__ === "string") return __UWF_VERSION__;
  const manifest = new URL("../package.json", import.meta.url);
  return (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version;
}
