/**
 * What uwf-builtin tells the model before the step's prompt (which is the user message and
 * holds the role, the task, the history and the moderator's instruction): how to work here,
 * and the output format again, since the final answer must follow it.
 */
export function systemPrompt(options: {
  root: string;
  tools: string[];
  outputFormat: string;
}): string {
  const lines = [
    "You are uwf-builtin, an agent doing one step of a uwf workflow: one role's deliverable.",
    "",
    `Your working directory is ${options.root}. Use the tools (${options.tools.join(", ")}) to look at and change files there. Paths are relative to the working directory; nothing outside it can be read or written.`,
  ];
  if (options.tools.includes("run_command")) {
    lines.push(
      'run_command runs one program without a shell: give argv as an array, e.g. ["npm", "test"]; pipes, redirections and globs do not work.',
    );
  }
  lines.push(
    "A tool that fails answers with an error message: read it and try again differently.",
    "",
    "Work with the tools until the deliverable is done. Then write your final answer, calling no tool: only that last message is your output, and it must start with the YAML frontmatter described below.",
    "",
    options.outputFormat.trim(),
  );
  return `${lines.join("\n")}\n`;
}
