/**
 * The message that asks the agent to fix its answer. It quotes every problem verbatim (so the
 * agent sees exactly what the validator saw) and restates the whole output format.
 */
export function buildCorrection(options: {
  errors: string[];
  attempt: number;
  maxAttempts: number;
  outputFormat: string;
}): string {
  const problems = options.errors.map((error) => `- ${error}`).join("\n");
  return [
    `Your reply could not be accepted (attempt ${options.attempt} of ${options.maxAttempts}). Its frontmatter has these problems:`,
    problems,
    "Reply again with your complete answer: first the corrected YAML frontmatter block, then your markdown. Do not apologise or explain; just give the corrected reply.",
    options.outputFormat,
  ].join("\n\n");
}
