import { readFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage, UwfError } from "./errors.js";

/**
 * The variables in `<home>/.env` (secrets for adapters). A missing file is none; a file that
 * exists but cannot be read is an error naming it, never silently ignored: an adapter run
 * without its API key fails far from the cause.
 */
export function readHomeDotenv(home: string): Record<string, string> {
  const file = join(home, ".env");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UwfError("CONFIG_INVALID", `cannot read ${file}: ${errorMessage(error)}`, {
      hint: "fix its permissions (it should be readable by you, mode 0600), or remove it",
      cause: error,
      details: { file },
    });
  }
  return parseDotenv(text);
}

/** Add `<home>/.env` to `env` without overriding what is set: the environment always wins. */
export function addHomeDotenv(home: string, env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(readHomeDotenv(home))) {
    if (env[name] === undefined) env[name] = value;
  }
}

// dotenv's line syntax (v17): `KEY=value`, `export KEY=value`, `KEY: value`, '…', "…" (with \n
// and \r expanded) or `…` values that may span lines, and `#` comments.
const LINE =
  /(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)/gm;

/**
 * The variables a `.env` text sets, exactly as the dotenv package's `parse` reads them (a test
 * compares the two over many texts). dotenv itself loads node:crypto when imported, for its
 * encrypted vaults, which cost every process that reads `.env` ≈ 5 ms (DESIGN §14). The
 * expressions are dotenv's (BSD-2-Clause, Copyright (c) 2015, Scott Motte).
 */
export function parseDotenv(text: string): Record<string, string> {
  // A plain object, as dotenv's: a `__proto__` line sets nothing.
  const values: Record<string, string> = {};
  for (const match of text.replace(/\r\n?/gm, "\n").matchAll(LINE)) {
    let value = (match[2] ?? "").trim();
    const quote = value[0];
    value = value.replace(/^(['"`])([\s\S]*)\1$/gm, "$2");
    if (quote === '"') value = value.replace(/\\n/g, "\n").replace(/\\r/g, "\r");
    values[match[1]!] = value;
  }
  return values;
}
