import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";
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
  // The dotenv package's own parser, so .env reads as every dotenv user expects; the bundle gives
  // it node:crypto (for vaults, unused here) on first use only (scripts/bundle.mjs).
  return parse(text);
}

/** Add `<home>/.env` to `env` without overriding what is set: the environment always wins. */
export function addHomeDotenv(home: string, env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(readHomeDotenv(home))) {
    if (env[name] === undefined) env[name] = value;
  }
}
