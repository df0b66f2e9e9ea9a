import { readFileSync } from "node:fs";

// The bundler defines this (one version for every package); unbundled runs read package.json.
declare const __UWF_VERSION__: string | undefined;

export function builtinVersion(): string {
  if (typeof __UWF_VERSION__ === "string") return __UWF_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  return (pkg as { version: string }).version;
}
