import type { WorkflowPayload } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { graphEdges, graphSvg } from "../pages/graph.js";
import { threadRoute } from "./route.js";

const role = { frontmatter: "0000000000000" };
const review: WorkflowPayload = {
  name: "review",
  roles: { planner: role, developer: role, reviewer: role },
  graph: {
    $START: {
      new: { role: "planner", prompt: "Plan." },
      resume: { role: "planner", prompt: "Plan again." },
    },
    planner: {
      ready: { role: "developer", prompt: "Build." },
      unclear: { role: "$SUSPEND", prompt: "{{{question}}}" },
    },
    developer: { done: { role: "reviewer", prompt: "Review." } },
    reviewer: {
      approved: { role: "$END", prompt: "Done." },
      rejected: { role: "developer", prompt: "Fix." },
    },
  },
};

const step = (role: string, status: string) => ({ role, status });

describe("a thread's route on its graph", () => {
  it("counts each edge its steps took, the review loop twice, and ends at $END", () => {
    const route = threadRoute(
      review,
      [
        step("planner", "ready"),
        step("developer", "done"),
        step("reviewer", "rejected"),
        step("developer", "done"),
        step("reviewer", "approved"),
      ],
      "$END",
    );
    expect(Object.fromEntries(route.taken)).toEqual({
      "edge-_24START-new": 1,
      "edge-planner-ready": 1,
      "edge-developer-done": 2,
      "edge-reviewer-rejected": 1,
      "edge-reviewer-approved": 1,
    });
    expect(route.visited.has("$END")).toBe(true);
    expect(route.visited.has("$SUSPEND")).toBe(false);
  });

  it("takes a question's edge to $SUSPEND, and a restart after the end by $START.resume", () => {
    const asked = threadRoute(review, [step("planner", "unclear")], "planner");
    expect(asked.taken.get("edge-planner-unclear")).toBe(1);
    const again = threadRoute(
      review,
      [step("planner", "ready"), step("developer", "done"), step("reviewer", "approved")],
      null,
    );
    expect(again.taken.get("edge-reviewer-approved")).toBe(1);
    const restarted = threadRoute(
      review,
      [
        step("planner", "ready"),
        step("developer", "done"),
        step("reviewer", "approved"),
        step("planner", "ready"),
      ],
      "developer",
    );
    expect(restarted.taken.get("edge-_24START-resume")).toBe(1);
    // The edge to the role that runs next is walked; one to a role that does not is not.
    expect(restarted.taken.get("edge-planner-ready")).toBe(2);
  });

  it("does not count a step the graph does not lead to (a poke's)", () => {
    const route = threadRoute(
      review,
      [step("planner", "ready"), step("reviewer", "approved")],
      null,
    );
    expect(route.taken.get("edge-planner-ready")).toBeUndefined();
    expect(route.taken.get("edge-reviewer-approved")).toBe(1);
  });

  it("is drawn: taken edges with their count, the others faded, the current role marked", () => {
    const route = threadRoute(review, [step("planner", "ready")], "developer");
    const svg = graphSvg(review, graphEdges(review), {
      ...route,
      linkBase: "/workflows/hash/X",
    }).text;
    expect(svg).toContain('class="edge  taken" data-taken="1"');
    expect(svg).toContain("ready \u00b71");
    expect(svg).toContain('class="edge suspend untaken" data-taken="0"');
    expect(svg).toMatch(
      /class="node role current" aria-current="step" aria-label="role developer, where the thread is now"/,
    );
    expect(svg).toContain('href="/workflows/hash/X#edge-planner-ready"');
    // Without a route the workflow page draws as before: no counts, no marks.
    expect(graphSvg(review, graphEdges(review)).text).not.toMatch(/taken|current/);
  });
});
