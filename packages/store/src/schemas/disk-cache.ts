import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { lazyRequire, makePrivateDir, writeFileAtomic } from "@united-workforce/util";
import type { ErrorObject } from "ajv";
import type { PrecompiledValidator } from "./builtin-validators.js";
import { FORMATS_MODULE, validatorFormats } from "./formats.js";

/**
 * Compiled validators shared across processes: `<home>/cache/validators/<file>` holds the
 * CommonJS code ajv generates for a schema (its "standalone" export). A process that finds the
 * file runs that code without loading ajv, which saves ≈ 40 ms per process (DESIGN §14).
 *
 * Schema nodes are content-addressed, so a schema hash always names the same schema, and the
 * file name adds what else shaped the code: this format's version and ajv's version. The code
 * may require only ajv's tiny runtime helpers and our formats (a fixed allow-list); a file that
 * is unreadable, damaged, or asks for anything else is ignored, deleted and compiled afresh, so
 * a broken cache costs time but never changes a validation result.
 */

/** A validator from ajv or from the disk cache: called the same way, same `errors`. */
export interface CompiledValidator {
  (data: unknown): boolean | Promise<unknown>;
  errors?: ErrorObject[] | null;
}

/** Bump when what shapes generated code changes: ajv-loader.ts options, formats.ts, the shim. */
export const CACHE_FORMAT = "v4";

/**
 * The ajv version cached files are looked up for, fixed here so that a hit reads nothing of ajv.
 * Files are written under the installed version, so a stale value costs hits, never
 * correctness; a test keeps it equal to the installed ajv.
 */
export const AJV_VERSION = "8.20.0";

// What ajv's generated code can `require` for draft-07, 2019-09 and 2020-12 schemas: deep
// equality (const, enum, uniqueItems), string length in code points (minLength, maxLength),
// the error class of `$async` schemas, and the URI library (listed by ajv, not used by our
// dialects). Each is a small module that loads nothing else of ajv.
const RUNTIME_MODULES = new Set([
  "ajv/dist/runtime/equal",
  "ajv/dist/runtime/ucs2length",
  "ajv/dist/runtime/uri",
  "ajv/dist/runtime/validation_error",
]);

const load = lazyRequire(() => import.meta.url);
const HEADER = "// uwf validator";

/** `<hash>.v4-ajv8.20.0.cjs` */
export function cacheFileName(schemaHash: string, ajvVersion: string = AJV_VERSION): string {
  return `${schemaHash}.${CACHE_FORMAT}-ajv${ajvVersion}.cjs`;
}

/** The cached validator of a schema, or null (none, or unusable: then the file is deleted). */
export function readCachedValidator(dir: string, schemaHash: string): CompiledValidator | null {
  const file = join(dir, cacheFileName(schemaHash));
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const code = unwrap(schemaHash, text);
  const validate = code === null ? null : instantiate(code);
  if (validate === null) {
    try {
      rmSync(file, { force: true });
    } catch {
      // Left in place it is only read and refused again.
    }
  }
  return validate;
}

/** Store generated code for later processes; a cache that cannot be written only costs time. */
export function writeCachedValidator(
  dir: string,
  schemaHash: string,
  code: string,
  ajvVersion: string,
): void {
  try {
    makePrivateDir(dir);
    writeFileAtomic(join(dir, cacheFileName(schemaHash, ajvVersion)), wrap(schemaHash, code));
  } catch {
    // Read-only or full disk: the next process compiles again.
  }
}

/**
 * Run generated CommonJS code and return the validator it exports, or null when the code
 * fails, requires a module outside the allow-list, or does not export a function.
 */
export function instantiate(code: string): CompiledValidator | null {
  let run: PrecompiledValidator;
  try {
    // The code comes from ajv (see the module comment); it sees only this require.
    run = new Function("require", "module", "exports", code) as PrecompiledValidator;
  } catch {
    return null;
  }
  return runModule(run);
}

/** Run a validator's CommonJS module function (generated code) and return what it exports. */
export function runModule(run: PrecompiledValidator): CompiledValidator | null {
  const module: { exports: unknown } = { exports: {} };
  try {
    run(shimRequire, module, module.exports);
  } catch {
    return null;
  }
  return typeof module.exports === "function" ? (module.exports as CompiledValidator) : null;
}

function shimRequire(id: string): unknown {
  if (id === FORMATS_MODULE) return validatorFormats();
  if (RUNTIME_MODULES.has(id)) return load(id);
  throw new Error(`cached validator code may not require ${JSON.stringify(id)}`);
}

// The first line names the schema and carries the code's length and checksum, so a truncated,
// damaged or misplaced file is refused before it runs (the length check alone is not enough:
// a file cut after a statement can still parse).
function wrap(schemaHash: string, code: string): string {
  return `${HEADER} ${schemaHash} ${code.length} ${checksum(code)}\n${code}`;
}

function unwrap(schemaHash: string, text: string): string | null {
  const newline = text.indexOf("\n");
  if (newline < 0) return null;
  const code = text.slice(newline + 1);
  const expected = `${HEADER} ${schemaHash} ${code.length} ${checksum(code)}`;
  return text.slice(0, newline) === expected ? code : null;
}

/**
 * Two 32-bit FNV-1a style sums over the code's UTF-8 bytes, four at a time (different offsets),
 * 64 bits together. This guards against damage, not an attacker (the folder is the user's
 * own), so it needs no node:crypto, whose loading would cost every validating process ≈ 3 ms;
 * taking whole words keeps the loop short in a process too young for V8 to have optimised it.
 */
function checksum(code: string): string {
  const bytes = Buffer.from(code, "utf8");
  const count = bytes.length >>> 2;
  // Buffers over 4 KB own their memory from offset 0; a smaller one may sit unaligned in the pool.
  const words =
    bytes.byteOffset % 4 === 0
      ? new Int32Array(bytes.buffer, bytes.byteOffset, count)
      : new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 4));
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < count; i++) {
    const word = words[i]!;
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x01000193) ^ (b >>> 15);
  }
  for (let i = count * 4; i < bytes.length; i++) a = Math.imul(a ^ bytes[i]!, 0x01000193);
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}
