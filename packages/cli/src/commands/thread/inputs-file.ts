import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { errorMessage, UwfError } from "@united-workforce/util";

/**
 * The `--inputs <file>` of `thread start`: a YAML or JSON mapping (JSON is YAML), relative to
 * the caller's directory. Parse errors name the file and line; the mapping itself is checked
 * against the workflow's inputs later, with the `--input` values.
 */
export async function readInputsFile(
  cwd: string,
  file: string,
): Promise<{ name: string; values: unknown }> {
  let source: string;
  try {
    source = readFileSync(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new UwfError("USAGE", `cannot read --inputs ${file}: ${errorMessage(error)}`, {
      hint: "Pass a readable YAML or JSON file (relative paths are taken from the current directory).",
    });
  }
  const { parseDocument } = await import("yaml");
  const doc = parseDocument(source, { prettyErrors: false });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem !== undefined) {
    throw new UwfError(
      "INPUT_INVALID",
      `--inputs ${file} is not valid YAML or JSON: ${problem.message}`,
      {
        hint: 'Write the inputs as a mapping, e.g. `issue: 42` on its own line, or {"issue": 42}.',
      },
    );
  }
  return { name: file, values: doc.toJS({ maxAliasCount: 100 }) ?? {} };
}
