import type { Graph } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import mustache from "mustache";
import { describe, expect, test } from "vitest";
import { evaluate, fanoutPath, startOutput } from "./evaluate.js";

const graph: Graph = {
  $START: {
    new: { role: "planner", prompt: "Plan the task." },
    resume: { role: "planner", prompt: "Continue where the last run stopped." },
  },
  planner: {
    ready: { role: "developer", prompt: "Implement {{{plan}}}.", location: "{{{repo}}}/{{dir}}" },
    insufficient_info: { role: "$SUSPEND", prompt: "Need more info: {{{reason}}}" },
    quiet: { role: "developer", prompt: "{{{plan}}}" },
  },
  developer: {
    done: { role: "reviewer", prompt: "Review {{branch}} / {{{branch}}} / {{&branch}}" },
  },
  reviewer: {
    approved: { role: "$END", prompt: "Approved by {{who.name}}." },
  },
};

function moderatorError(run: () => unknown): UwfError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UwfError);
    expect((error as UwfError).code).toBe("MODERATOR");
    return error as UwfError;
  }
  throw new Error("expected a MODERATOR error");
}

describe("evaluate", () => {
  test("the StartNode routes through $START with new or resume", () => {
    expect(startOutput("new")).toEqual({ $status: "new" });
    expect(evaluate(graph, "$START", startOutput("new"))).toEqual({
      kind: "next",
      role: "planner",
      prompt: "Plan the task.",
      location: null,
    });
    expect(evaluate(graph, "$START", startOutput("resume"))).toMatchObject({
      role: "planner",
      prompt: "Continue where the last run stopped.",
    });
  });

  test("renders the prompt and the location from the output", () => {
    expect(
      evaluate(graph, "planner", { $status: "ready", plan: "P1", repo: "/src/app", dir: "pkg" }),
    ).toEqual({
      kind: "next",
      role: "developer",
      prompt: "Implement P1.",
      location: "/src/app/pkg",
    });
  });

  test("a location that renders blank means the thread's own directory", () => {
    const blank: Graph = { a: { ok: { role: "b", prompt: "go", location: "{{{where}}}" } } };
    expect(evaluate(blank, "a", { $status: "ok" })).toMatchObject({ location: null });
  });

  test("no HTML escaping in {{x}}, {{{x}}} or {{&x}}, and the global escape is untouched", () => {
    const before = mustache.escape;
    const result = evaluate(graph, "developer", { $status: "done", branch: '<a & "b">' });
    expect(result).toMatchObject({ prompt: 'Review <a & "b"> / <a & "b"> / <a & "b">' });
    expect(mustache.escape).toBe(before);
    expect(mustache.render("{{x}}", { x: "<" })).toBe("&lt;");
  });

  test("a $END target ends the thread with the rendered prompt; dotted names render", () => {
    expect(evaluate(graph, "reviewer", { $status: "approved", who: { name: "Ada" } })).toEqual({
      kind: "end",
      prompt: "Approved by Ada.",
    });
  });

  test("a $SUSPEND target suspends with the rendered prompt as the question", () => {
    expect(
      evaluate(graph, "planner", { $status: "insufficient_info", reason: "which repo?" }),
    ).toEqual({
      kind: "suspend",
      prompt: "Need more info: which repo?",
    });
  });

  test("any agent may answer $status: $SUSPEND with a reason, without an edge", () => {
    expect(
      evaluate(graph, "developer", { $status: "$SUSPEND", reason: "Which database?" }),
    ).toEqual({
      kind: "suspend",
      prompt: "Which database?",
    });
    expect(evaluate(graph, "developer", { $status: "$SUSPEND" })).toEqual({
      kind: "suspend",
      prompt: 'role "developer" suspended the thread without giving a reason',
    });
  });

  test("a missing or non-string $status", () => {
    for (const output of [{}, { $status: 3 }, { $status: "" }, { status: "done" }]) {
      expect(moderatorError(() => evaluate(graph, "developer", output)).message).toBe(
        'agent output for role "developer" is missing required "$status" string',
      );
    }
  });

  test("a role with no transitions, including names on Object.prototype", () => {
    expect(moderatorError(() => evaluate(graph, "tester", { $status: "passed" })).message).toBe(
      'no transitions defined for role "tester"',
    );
    expect(moderatorError(() => evaluate(graph, "constructor", { $status: "x" })).message).toBe(
      'no transitions defined for role "constructor"',
    );
  });

  test("a status with no transition", () => {
    const error = moderatorError(() => evaluate(graph, "reviewer", { $status: "rejected" }));
    expect(error.message).toBe('no transition for role "reviewer" with status "rejected"');
    expect(error.hint).toContain("approved");
    expect(moderatorError(() => evaluate(graph, "reviewer", { $status: "toString" })).message).toBe(
      'no transition for role "reviewer" with status "toString"',
    );
  });

  test("a prompt that renders blank is an error naming the template", () => {
    const error = moderatorError(() =>
      evaluate(graph, "planner", { $status: "quiet", plan: "  " }),
    );
    expect(error.message).toBe(
      'the prompt of graph[planner][quiet] rendered blank from template "{{{plan}}}"',
    );
  });

  test("a template mustache cannot parse is a MODERATOR error", () => {
    const broken: Graph = { a: { ok: { role: "b", prompt: "{{#open}}" } } };
    expect(moderatorError(() => evaluate(broken, "a", { $status: "ok" })).message).toMatch(
      /^cannot render graph\[a\]\[ok\]\.prompt "\{\{#open\}\}": Unclosed section "open"/,
    );
  });
});

describe("evaluate with the thread's inputs", () => {
  const withInputs: Graph = {
    $START: {
      new: {
        role: "planner",
        prompt: "Fix issue {{{inputs.issue}}}{{#inputs.urgent}} now{{/inputs.urgent}}.",
      },
      resume: { role: "planner", prompt: "Again." },
    },
    planner: {
      ready: {
        role: "$END",
        prompt: "{{{plan}}} for {{{inputs.issue}}}",
        location: "{{{inputs.dir}}}",
      },
    },
  };

  test("renders {{{inputs.x}}} on $START edges and role edges alike", () => {
    const inputs = { issue: 42, urgent: true, dir: "src" };
    expect(evaluate(withInputs, "$START", startOutput("new"), inputs)).toMatchObject({
      prompt: "Fix issue 42 now.",
    });
    expect(evaluate(withInputs, "planner", { $status: "ready", plan: "Patch" }, inputs)).toEqual({
      kind: "end",
      prompt: "Patch for 42",
    });
  });

  test("the inputs win over an output field named inputs", () => {
    const output = { $status: "ready", plan: "Patch", inputs: { issue: "forged" } };
    expect(evaluate(withInputs, "planner", output, { issue: 7 })).toMatchObject({
      prompt: "Patch for 7",
    });
  });
});

describe("evaluate a fan-out edge", () => {
  const CHILD = "0123456789ABC";
  const fanning: Graph = {
    plan: {
      ready: {
        role: "join",
        prompt: "Review {{{item.path}}} ({{index}}) for {{{goal}}}",
        location: "pkg/{{{item.dir}}}",
        fanout: { workflow: CHILD, over: "{{{files}}}", concurrency: 2, failure: "continue" },
      },
      single: { role: "join", prompt: "Do {{{goal}}}", fanout: { workflow: CHILD } },
      nested: { role: "join", prompt: "{{{item}}}", fanout: { workflow: CHILD, over: "a.b" } },
    },
  };

  test("one child per item, each with its task rendered from item and index", () => {
    const output = {
      $status: "ready",
      goal: "bugs",
      files: [
        { path: "a.ts", dir: "one" },
        { path: "b.ts", dir: "" },
      ],
    };
    expect(evaluate(fanning, "plan", output)).toEqual({
      kind: "fanout",
      role: "join",
      template: "Review {{{item.path}}} ({{index}}) for {{{goal}}}",
      fanout: { workflow: CHILD, over: "{{{files}}}", concurrency: 2, failure: "continue" },
      items: [
        {
          item: { path: "a.ts", dir: "one" },
          prompt: "Review a.ts (0) for bugs",
          location: "pkg/one",
        },
        { item: { path: "b.ts", dir: "" }, prompt: "Review b.ts (1) for bugs", location: "pkg/" },
      ],
    });
  });

  test("without `over` there is one child: a sub-workflow", () => {
    const next = evaluate(fanning, "plan", { $status: "single", goal: "it" });
    expect(next).toMatchObject({ kind: "fanout", items: [{ item: null, prompt: "Do it" }] });
  });

  test("an empty list fans out to no child", () => {
    const next = evaluate(fanning, "plan", { $status: "ready", goal: "x", files: [] });
    expect(next).toMatchObject({ kind: "fanout", items: [] });
  });

  test("`over` may name a nested field", () => {
    const next = evaluate(fanning, "plan", { $status: "nested", a: { b: ["x", "y"] } });
    expect(next).toMatchObject({ items: [{ prompt: "x" }, { prompt: "y" }] });
  });

  test("`over` that names no list is a moderator error naming the field and the role", () => {
    const error = moderatorError(() => evaluate(fanning, "plan", { $status: "ready", files: "a" }));
    expect(error.message).toContain('graph[plan][ready].fanout.over is "{{{files}}}"');
    expect(error.message).toContain('role "plan" holds string there, not a list');
    const missing = moderatorError(() => evaluate(fanning, "plan", { $status: "ready" }));
    expect(missing.message).toContain("holds nothing there");
  });

  test("a task that renders blank for an item is refused, naming the item", () => {
    const error = moderatorError(() =>
      evaluate(fanning, "plan", { $status: "nested", a: { b: [""] } }),
    );
    expect(error.message).toContain("rendered blank for item 0");
  });

  test("fanoutPath reads triple, double and bare mustache names", () => {
    expect(fanoutPath("{{{items}}}")).toEqual(["items"]);
    expect(fanoutPath("{{ plan.files }}")).toEqual(["plan", "files"]);
    expect(fanoutPath("inputs.list")).toEqual(["inputs", "list"]);
  });
});
