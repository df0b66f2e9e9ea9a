import type { WorkflowFixture } from "@united-workforce/test-utils";

/** A writer → reviewer workflow: a const and an enum `$status`, a `$SUSPEND` and an `$END`. */
export const relay: WorkflowFixture = {
  name: "relay",
  roles: {
    writer: {
      frontmatter: {
        properties: { $status: { const: "written" }, text: { type: "string" } },
        required: ["$status", "text"],
      },
    },
    reviewer: {
      frontmatter: {
        properties: { $status: { enum: ["approved", "asks"] }, question: { type: "string" } },
        required: ["$status"],
      },
    },
  },
  graph: {
    $START: {
      new: { role: "writer", prompt: "Write a line." },
      resume: { role: "writer", prompt: "Again." },
    },
    writer: { written: { role: "reviewer", prompt: "Review: {{{text}}}" } },
    reviewer: {
      approved: { role: "$END", prompt: "Done." },
      asks: { role: "$SUSPEND", prompt: "{{{question}}}" },
    },
  },
};

/** relay whose reviewer approves (`$END`) or sends the text back to the writer (a loop). */
export const loop: WorkflowFixture = {
  name: "loop",
  roles: {
    ...relay.roles,
    reviewer: {
      frontmatter: {
        properties: { $status: { enum: ["approved", "changes"] }, notes: { type: "string" } },
        required: ["$status"],
      },
    },
  },
  graph: {
    ...relay.graph,
    reviewer: {
      approved: { role: "$END", prompt: "Done." },
      changes: { role: "writer", prompt: "Revise: {{{notes}}}" },
    },
  },
};
