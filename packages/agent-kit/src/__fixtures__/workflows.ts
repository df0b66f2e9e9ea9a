import type { WorkflowFixture } from "@united-workforce/test-utils";

/** A planner → developer ⇄ reviewer workflow: discriminated, flat and enum schemas. */
export const planDevReview: WorkflowFixture = {
  name: "plan-dev-review",
  roles: {
    planner: {
      goal: "You are a planning agent.",
      capabilities: ["issue-analysis", "planning"],
      procedure: "Read the task and write a plan.",
      output: "The plan, step by step.",
      frontmatter: {
        oneOf: [
          {
            properties: {
              $status: { const: "ready" },
              plan: { type: "string", description: "the plan in one paragraph" },
              repoPath: { type: "string" },
            },
            required: ["$status", "plan"],
          },
          {
            properties: { $status: { const: "insufficient_info" }, reason: { type: "string" } },
            required: ["$status", "reason"],
          },
        ],
      },
    },
    developer: {
      goal: "You are a developer.",
      frontmatter: {
        type: "object",
        properties: {
          $status: { const: "done" },
          branch: { type: "string" },
          filesChanged: { type: "array", items: { type: "string" } },
        },
        required: ["$status", "branch"],
      },
    },
    reviewer: {
      goal: "You review code.",
      frontmatter: {
        oneOf: [
          { properties: { $status: { const: "approved" } }, required: ["$status"] },
          {
            properties: { $status: { const: "rejected" }, comments: { type: "string" } },
            required: ["$status", "comments"],
          },
        ],
      },
    },
  },
  graph: {
    $START: {
      new: { role: "planner", prompt: "Plan the task." },
      resume: { role: "planner", prompt: "Continue." },
    },
    planner: {
      ready: { role: "developer", prompt: "Implement {{{plan}}}." },
      insufficient_info: { role: "$SUSPEND", prompt: "{{{reason}}}" },
    },
    developer: { done: { role: "reviewer", prompt: "Review {{{branch}}}." } },
    reviewer: {
      approved: { role: "$END", prompt: "Done." },
      rejected: { role: "developer", prompt: "Fix: {{{comments}}}" },
    },
  },
};
