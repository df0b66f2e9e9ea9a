import { shellQuote, UwfError } from "@united-workforce/util";
import type { WorkflowProblem } from "./problem-positions.js";

/**
 * The one error every workflow problem becomes: the message names the file and lists every
 * problem (a person reads it in the terminal), `details.errors` carries the same list for
 * `--format json`, and `details.problems` each one's code, path, file, line and column when
 * they are known.
 */
export function workflowInvalidError(
  file: string,
  errors: readonly string[],
  warnings: readonly string[] = [],
  problems: readonly WorkflowProblem[] = [],
): UwfError {
  const message =
    errors.length === 1
      ? `invalid workflow "${file}": ${errors[0]}`
      : `invalid workflow "${file}" (${errors.length} errors):\n${errors.map((e) => `  - ${e}`).join("\n")}`;
  return new UwfError("WORKFLOW_INVALID", message, {
    hint: `Fix the problems listed and check again with \`uwf workflow validate ${shellQuote(file)}\` (\`uwf prompt workflow-authoring\` describes the format).`,
    details: {
      file,
      errors: [...errors],
      warnings: [...warnings],
      ...(problems.length === 0 ? {} : { problems: [...problems] }),
    },
  });
}
