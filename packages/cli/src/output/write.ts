import type { CommandResult, OutputFormat } from "../commands/command.js";
import { PLAIN_VIEW, type TextView } from "./table.js";

/** The one place a command's result becomes text on stdout. */
export async function formatResult(
  result: CommandResult,
  format: OutputFormat,
  view: TextView = PLAIN_VIEW,
): Promise<string> {
  switch (format) {
    case "json":
      return `${JSON.stringify(result.document, null, 2)}\n`;
    case "yaml": {
      // Loaded for the commands that print YAML only: most never do.
      const { stringify } = await import("yaml");
      return stringify(result.document);
    }
    default: {
      const text = result.text(result.document, view);
      return text === "" || text.endsWith("\n") ? text : `${text}\n`;
    }
  }
}
