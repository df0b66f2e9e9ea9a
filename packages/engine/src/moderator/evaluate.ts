import {
  END,
  type Graph,
  STATUS_FIELD,
  type StartStatus,
  SUSPEND,
} from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import mustache from "mustache";

/** Where the thread goes after the head step, with the rendered edge prompt. */
export type Transition =
  | { kind: "next"; role: string; prompt: string; location: string | null }
  | { kind: "end"; prompt: string }
  | { kind: "suspend"; prompt: string };

/** Edge prompts are plain text for agents: values are inserted verbatim, never HTML-escaped. */
const VERBATIM = { escape: (value: unknown) => String(value) };
/** Partials are not part of the workflow format; `{{> x}}` renders nothing. */
const NO_PARTIALS = {};

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

function render(template: string, view: Record<string, unknown>, what: string): string {
  try {
    return mustache.render(template, view, NO_PARTIALS, VERBATIM);
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
