import type { CommandResult, OutputFormat } from "../commands/command.js";

/** The one place a command's result becomes text on stdout. */
export async function formatResult(result: CommandResult, format: OutputFormat): Promise<string> {
  switch (format) {
    case "json":
      return `${JSON.stringify(result.document, null, 2)}\n`;
    case "yaml": {
      // Loaded for the commands that print YAML only: most never do.
      const { stringify } = await import("yaml");
      return stringify(result.document);
    }
    default: {
      const text = result.text(result.document);
      return text === "" || text.endsWith("\n") ? text : `${text}\n`;
    }
  }
}
