/**
 * The conformance workflow: planner → developer → planner → $END, so one run shows a full
 * workflow with two roles and a role revisited. Both roles accept `$status: next` (the fake
 * answers by turn number, not by role); only the planner may `finish`.
 */
export const CONFORMANCE_WORKFLOW = `name: conformance
description: Two roles and a revisit, for the adapter conformance cases.
roles:
  planner:
    description: Plans the work, then checks it.
    goal: Plan the work in the task, and check it once the developer is done.
    procedure: Read the task and say what to do next.
    output: A short note in the frontmatter.
    frontmatter:
      type: object
      properties:
        $status: { enum: [next, finish] }
        note: { type: string }
      required: [$status]
  developer:
    description: Carries out the plan.
    goal: Do what the planner asked, in the working directory.
    procedure: Make the change, then report.
    output: A short note in the frontmatter.
    frontmatter:
      type: object
      properties:
        $status: { const: next }
        note: { type: string }
      required: [$status]
graph:
  $START:
    new: { role: planner, prompt: "Plan the work in the task." }
    resume: { role: planner, prompt: "Continue the work in the task." }
  planner:
    next: { role: developer, prompt: "Carry out the plan: {{{note}}}" }
    finish: { role: $END, prompt: "Finished: {{{note}}}" }
  developer:
    next: { role: planner, prompt: "Check the work: {{{note}}}" }
`;

/** A frontmatter answer; `extra` fields are not in the schema, so uwf drops them from the output. */
export function answer(status: string, note: string, extra: Record<string, string> = {}): string {
  const lines = [`$status: ${status}`, `note: ${JSON.stringify(note)}`];
  for (const [key, value] of Object.entries(extra)) lines.push(`${key}: ${JSON.stringify(value)}`);
  return `---\n${lines.join("\n")}\n---\n${note}\n`;
}
