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

/** A writer drafts; a reviewer approves (`$END`) or sends it back to the writer (a loop). */
export const loop: WorkflowFixture = {
  name: "loop",
  roles: {
    writer: {
      frontmatter: {
        properties: { $status: { const: "written" }, text: { type: "string" } },
        required: ["$status", "text"],
      },
    },
    reviewer: {
      frontmatter: {
        properties: { $status: { enum: ["approved", "changes"] }, notes: { type: "string" } },
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
      changes: { role: "writer", prompt: "Revise: {{{notes}}}" },
    },
  },
};
