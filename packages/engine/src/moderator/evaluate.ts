import {
  type EdgeTarget,
  END,
  type Fanout,
  type Graph,
  STATUS_FIELD,
  type StartStatus,
  SUSPEND,
} from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { renderVerbatim } from "../workflow/render-template.js";

/** Where the thread goes after the head step, with the rendered edge prompt. */
export type Transition =
  | { kind: "next"; role: string; prompt: string; location: string | null }
  | { kind: "end"; prompt: string }
  | { kind: "suspend"; prompt: string }
  | FanoutTransition;

/**
 * A fan-out edge: one child thread per item, then the join role (`role`). `items` holds each
 * child's task (the edge prompt rendered with `item` and `index`) and where it runs.
 */
export interface FanoutTransition {
  kind: "fanout";
  role: string;
  fanout: Fanout;
  items: FanoutItem[];
  /** The edge prompt as written: the join step records it. */
  template: string;
}

export interface FanoutItem {
  item: unknown;
  prompt: string;
  location: string | null;
}

/**
 * The output routing reads when the head is the StartNode: lastRole is `$START` and the status
 * is `new` for a fresh thread, `resume` when a completed thread is resumed.
 */
export function startOutput(kind: StartStatus): Record<string, unknown> {
  return { [STATUS_FIELD]: kind };
}

/**
 * Route one step: `graph[lastRole][lastOutput.$status]`, with the edge prompt (and location)
 * rendered from the output. Pure: no I/O, no LLM, no walk of the chain. Any role may answer
 * `$status: $SUSPEND` (with a `reason`) without declaring it; that suspends the thread.
 * `inputs` (the thread's, when its workflow declares them) are rendered as `{{{inputs.x}}}`;
 * they take precedence over an output field of that name, which validation refuses anyway.
 */
export function evaluate(
  graph: Graph,
  lastRole: string,
  lastOutput: Record<string, unknown>,
  inputs?: Record<string, unknown>,
): Transition {
  const status = lastOutput[STATUS_FIELD];
  if (typeof status !== "string" || status === "") {
    throw new UwfError(
      "MODERATOR",
      `agent output for role "${lastRole}" is missing required "$status" string`,
      { hint: `The role's frontmatter schema must require "$status"; check the step's output.` },
    );
  }
  if (status === SUSPEND) return { kind: "suspend", prompt: suspendReason(lastRole, lastOutput) };

  const edges = Object.hasOwn(graph, lastRole) ? graph[lastRole] : undefined;
  if (edges === undefined) {
    throw new UwfError("MODERATOR", `no transitions defined for role "${lastRole}"`, {
      hint: `Add graph.${lastRole} to the workflow, then start a new thread (running threads keep their workflow).`,
    });
  }
  const edge = Object.hasOwn(edges, status) ? edges[status] : undefined;
  if (edge === undefined) {
    const known = Object.keys(edges).join(", ");
    throw new UwfError(
      "MODERATOR",
      `no transition for role "${lastRole}" with status "${status}"`,
      { hint: `graph.${lastRole} handles: ${known || "nothing"}. Add an edge for "${status}".` },
    );
  }

  const where = `graph[${lastRole}][${status}]`;
  const view = inputs === undefined ? lastOutput : { ...lastOutput, inputs };
  if (edge.fanout !== undefined) return fanoutTransition(edge, edge.fanout, view, lastRole, where);
  const prompt = render(edge.prompt, view, `${where}.prompt`);
  if (prompt.trim() === "") {
    throw new UwfError(
      "MODERATOR",
      `the prompt of ${where} rendered blank from template ${JSON.stringify(edge.prompt)}`,
      {
        hint: `The output of role "${lastRole}" left every field the template uses empty; make the template say something on its own.`,
      },
    );
  }
  if (edge.role === END) return { kind: "end", prompt };
  if (edge.role === SUSPEND) return { kind: "suspend", prompt };

  // A location that renders blank means "the thread's own working directory".
  const location =
    edge.location === undefined ? null : render(edge.location, view, `${where}.location`).trim();
  return { kind: "next", role: edge.role, prompt, location: location === "" ? null : location };
}

/** Mustache names a list as `{{{a.b}}}`, `{{a.b}}` or `a.b`: the dotted path inside. */
export function fanoutPath(over: string): string[] {
  const inner = over
    .trim()
    .replace(/^\{\{\{?\s*/, "")
    .replace(/\s*\}?\}\}$/, "");
  return inner === "." ? [] : inner.split(".");
}

function fanoutTransition(
  edge: EdgeTarget,
  fanout: Fanout,
  view: Record<string, unknown>,
  lastRole: string,
  where: string,
): FanoutTransition {
  let list: unknown[] = [null];
  if (fanout.over !== undefined) {
    let value: unknown = view;
    for (const key of fanoutPath(fanout.over)) {
      value =
        value !== null && typeof value === "object" && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    }
    if (!Array.isArray(value)) {
      const got = value === undefined ? "nothing" : value === null ? "null" : typeof value;
      throw new UwfError(
        "MODERATOR",
        `${where}.fanout.over is ${JSON.stringify(fanout.over)}, but the output of role "${lastRole}" holds ${got} there, not a list`,
        {
          hint: `Make role "${lastRole}"'s schema require that field as an array, or point \`over\` at a list in its output.`,
        },
      );
    }
    list = value;
  }
  const items = list.map((item, index) => {
    const itemView = { ...view, item, index };
    const prompt = render(edge.prompt, itemView, `${where}.prompt`);
    if (prompt.trim() === "") {
      throw new UwfError(
        "MODERATOR",
        `the prompt of ${where} rendered blank for item ${index} from template ${JSON.stringify(edge.prompt)}`,
        {
          hint: "Each child's task is the edge prompt; make the template say something on its own.",
        },
      );
    }
    const location =
      edge.location === undefined
        ? null
        : render(edge.location, itemView, `${where}.location`).trim() || null;
    return { item, prompt, location };
  });
  return { kind: "fanout", role: edge.role, fanout, items, template: edge.prompt };
}

function render(template: string, view: Record<string, unknown>, what: string): string {
  try {
    return renderVerbatim(template, view);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UwfError(
      "MODERATOR",
      `cannot render ${what} ${JSON.stringify(template)}: ${reason}`,
      {
        hint: "Fix the mustache template in the workflow (`uwf workflow validate` reports template errors).",
      },
    );
  }
}

function suspendReason(role: string, output: Record<string, unknown>): string {
  const reason = output.reason;
  if (typeof reason === "string" && reason.trim() !== "") return reason;
  return `role "${role}" suspended the thread without giving a reason`;
}
