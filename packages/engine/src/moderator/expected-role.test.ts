import type { Graph } from "@united-workforce/protocol";
import { describe, expect, test } from "vitest";
import { expectedRole } from "./expected-role.js";

const graph: Graph = {
  $START: {
    new: { role: "writer", prompt: "Write." },
    resume: { role: "editor", prompt: "Edit what was published." },
  },
  writer: { written: { role: "reviewer", prompt: "Review {{{text}}}." } },
  editor: { written: { role: "reviewer", prompt: "Review {{{text}}}." } },
  reviewer: {
    approved: { role: "$END", prompt: "Published." },
    changes: { role: "writer", prompt: "Revise: {{{notes}}}" },
    unclear: { role: "$SUSPEND", prompt: "{{{question}}}" },
  },
};

describe("expectedRole", () => {
  test("the first step is where $START.new leads", () => {
    expect(expectedRole(graph, null, undefined)).toEqual({
      role: "writer",
      why: '$START.new leads to "writer"',
    });
  });

  test("a step is followed by the role its status leads to", () => {
    const previous = { role: "reviewer", output: { $status: "changes", notes: "shorter" } };
    expect(expectedRole(graph, previous, undefined)).toEqual({
      role: "writer",
      why: '"reviewer" answered "changes", which leads to "writer"',
    });
  });

  test("a step that suspended, or could not be routed, is followed by its own role", () => {
    const asked = { role: "reviewer", output: { $status: "unclear", question: "Which tone?" } };
    expect(expectedRole(graph, asked, undefined).role).toBe("reviewer");
    const unroutable = { role: "reviewer", output: { $status: "lost" } };
    expect(expectedRole(graph, unroutable, undefined).role).toBe("reviewer");
  });

  test("a step that reached $END is followed by $START.resume's role", () => {
    const approved = { role: "reviewer", output: { $status: "approved" } };
    expect(expectedRole(graph, approved, undefined).role).toBe("editor");
  });

  test("an unreadable output names no role to check against", () => {
    expect(expectedRole(graph, { role: "reviewer", output: null }, undefined).role).toBeNull();
  });
});
