import { stringify as stringifyYaml } from "yaml";
import type { CommandResult, OutputFormat } from "../commands/command.js";

/** The one place a command's result becomes text on stdout. */
export function formatResult(result: CommandResult, format: OutputFormat): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(result.document, null, 2)}\n`;
    case "yaml":
      return stringifyYaml(result.document);
    default: {
      const text = result.text(result.document);
      return text === "" || text.endsWith("\n") ? text : `${text}\n`;
    }
  }
}
