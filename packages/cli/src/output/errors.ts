import type { ErrorDocument } from "@united-workforce/protocol";
import { errorFields } from "@united-workforce/util";
import type { OutputFormat } from "../commands/command.js";

export interface RenderedError {
  text: string;
  exitCode: number;
}

/**
 * Errors go to stderr: a message and what to do next, or under `--format json|yaml` the error
 * document (DESIGN §13) in that format, with the process's exit code beside the stable code.
 */
export function renderError(
  thrown: unknown,
  format: OutputFormat,
  logFile?: string,
): RenderedError {
  const { code, message, hint, exitCode, details } = errorFields(thrown, logFile);
  if (format !== "text") {
    const doc: ErrorDocument = { error: { code, message, hint, exitCode, ...details } };
    return { text: format === "json" ? `${JSON.stringify(doc)}\n` : yamlOf(doc.error), exitCode };
  }
  const lines = [`error: ${message}`];
  if (hint) lines.push(`hint: ${hint}`);
  return { text: `${lines.join("\n")}\n`, exitCode };
}

/**
 * The error document as YAML without loading a YAML library on the way out: every value is
 * written as JSON, which YAML reads as the same value (JSON is a subset of YAML 1.2).
 */
function yamlOf(error: Record<string, unknown>): string {
  const lines = ["error:"];
  for (const [key, value] of Object.entries(error)) {
    if (value !== undefined) lines.push(`  ${key}: ${JSON.stringify(value)}`);
  }
  return `${lines.join("\n")}\n`;
}
