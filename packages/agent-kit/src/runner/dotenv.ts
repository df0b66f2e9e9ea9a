import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";

/**
 * Add `<home>/.env` to `env` without overriding what is already set: the caller's environment
 * always wins over the file. A missing file is fine.
 */
export function loadHomeDotEnv(home: string, env: Record<string, string | undefined>): void {
  let text: string;
  try {
    text = readFileSync(join(home, ".env"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const [name, value] of Object.entries(parse(text))) {
    if (env[name] === undefined) env[name] = value;
  }
}
