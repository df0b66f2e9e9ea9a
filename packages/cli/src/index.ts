export type { CliIo } from "./cli-io.js";
export type {
  CommandContext,
  CommandResult,
  CommandSpec,
  OutputFormat,
} from "./commands/command.js";
export { COMMANDS } from "./commands/index.js";
export { renderCliReference } from "./help/reference.js";
export { runCli } from "./program.js";
