import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PackageDirs } from "../../../store/src/__testing__/built-store.js";

/** For tests only: this package's sources and build (other processes import the build). */
const src = join(dirname(fileURLToPath(import.meta.url)), "..");
export const packageDirs: PackageDirs = { src, dist: join(src, "..", "dist") };
