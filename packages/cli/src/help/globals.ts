/** The output formats every command takes (`--format`). */
export const FORMATS = ["text", "json", "yaml"] as const;

/** The options every command takes, as help, docs and `uwf prompt usage` show them. */
export const GLOBAL_OPTIONS = [
  {
    flags: "--format <format>",
    description: `output format: ${FORMATS.join(", ")} (default text)`,
  },
  { flags: "-V, --version", description: "print the version" },
  { flags: "-h, --help", description: "show help" },
  { flags: "--json", description: "same as --format json" },
] as const;

/** What each group of commands is for: `uwf --help`, docs/cli.md and the guides say it. */
export const GROUP_SUMMARIES: Record<string, string> = {
  workflow: "register, validate and inspect workflows",
  thread: "start, run and manage threads",
  step: "inspect steps and fork threads from them",
  cas: "inspect and maintain the content-addressed store",
  store: "move the whole store between backends",
  log: "read and clean process logs",
  config: "read and change config.yaml",
  prompt: "print guides for people and coding agents",
};
