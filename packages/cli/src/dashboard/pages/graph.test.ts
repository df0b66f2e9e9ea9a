import type { WorkflowPayload } from "@united-workforce/protocol";
import { describe, expect, it } from "vitest";
import { graphEdges, graphSvg, layout } from "./graph.js";

const role = { frontmatter: "0000000000000" };
const review: WorkflowPayload = {
  name: "review",
  roles: { planner: role, developer: role, reviewer: role, orphan: role },
  graph: {
    $START: {
      new: { role: "planner", prompt: "Plan." },
      resume: { role: "planner", prompt: "Plan again." },
    },
    planner: {
      ready: { role: "developer", prompt: "Build {{{plan}}}" },
      unclear: { role: "$SUSPEND", prompt: "<b>{{{question}}}</b>" },
    },
    developer: { done: { role: "reviewer", prompt: "Review." } },
    reviewer: {
      approved: { role: "$END", prompt: "Done." },
      rejected: { role: "developer", prompt: "Fix." },
    },
    orphan: { done: { role: "$END", prompt: "Never." } },
  },
};

describe("the workflow graph", () => {
  it("puts each role one layer below the first role that reaches it, terminals under their sources", () => {
    const { nodes } = layout(review, graphEdges(review));
    const layer = (name: string) => nodes.get(name)?.layer;
    expect(layer("$START")).toBe(0);
    expect(layer("planner")).toBe(1);
    expect(layer("developer")).toBe(2);
    expect(layer("reviewer")).toBe(3);
    // An early question is a short edge: $SUSPEND sits right under the planner.
    expect(layer("$SUSPEND")).toBe(2);
    // A role $START never reaches is still drawn, below the others; $END under the deepest source.
    expect(layer("orphan")).toBe(4);
    expect(layer("$END")).toBe(5);
  });

  it("draws every edge with its status, its prompt as an escaped tooltip, and a link to its entry", () => {
    const edges = graphEdges(review);
    const svg = graphSvg(review, edges).text;
    expect(edges).toHaveLength(8);
    for (const e of edges) expect(svg).toContain(`href="#${e.id}"`);
    expect(svg).toContain(">unclear</text>");
    expect(svg).toContain("&lt;b&gt;{{{question}}}&lt;/b&gt;");
    expect(svg).not.toContain("<b>");
    expect(svg).toContain('class="edge suspend"');
  });

  it("draws a fan-out edge apart: dashed, marked with its list, its child workflow in the tooltip", () => {
    const fanout: WorkflowPayload = {
      name: "fan",
      roles: { plan: role, collect: { ...role, join: true }, publish: { ...role, join: true } },
      graph: {
        $START: {
          new: { role: "plan", prompt: "Plan." },
          resume: { role: "plan", prompt: "Again." },
        },
        plan: {
          ready: {
            role: "collect",
            prompt: "Review {{{item.path}}}",
            fanout: { workflow: "1111111111111", over: "{{{files}}}", failure: "any" },
          },
        },
        collect: {
          done: { role: "publish", prompt: "Publish.", fanout: { workflow: "2222222222222" } },
        },
        publish: { done: { role: "$END", prompt: "Done." } },
      },
    };
    const edges = graphEdges(fanout);
    const svg = graphSvg(fanout, edges).text;
    expect(svg.match(/class="edge fanout"/g)).toHaveLength(2);
    expect(svg).toContain(">ready \u00d7files</text>");
    expect(svg).toContain(">done \u00d71</text>");
    expect(svg).toContain(
      "fan-out: one child per item of {{{files}}}, each running workflow 1111111111111; concurrency 4, failure any",
    );
    expect(svg.match(/class="node role join"/g)).toHaveLength(2);
    expect(svg).toContain('class="node role"');
    // An ordinary edge keeps its plain label.
    expect(graphSvg(review, graphEdges(review)).text).not.toContain("fanout");
  });

  it("gives statuses that are not plain words anchors a URL can hold", () => {
    const [edge] = graphEdges({
      name: "odd",
      roles: { "a b": role },
      graph: { "a b": { "x/y": { role: "$END", prompt: "." } } },
    });
    expect(edge!.id).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});
