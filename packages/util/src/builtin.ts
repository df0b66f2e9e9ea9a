import { createRequire } from "node:module";

// Node built-ins that cost a start real time to load (node:crypto brings the stream modules
// with it, ≈ 2 ms) and that most `uwf` processes never use, loaded on first call instead of
// by a top-level import (DESIGN §14).
const load = createRequire(import.meta.url);

/** `node:crypto`, loaded on first use. */
export function nodeCrypto(): typeof import("node:crypto") {
  return load("node:crypto") as typeof import("node:crypto");
}
