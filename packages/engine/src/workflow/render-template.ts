import type { ErrorCode } from "@united-workforce/protocol";
import { errorMessage, UwfError } from "@united-workforce/util";
import mustache from "mustache";

/** Workflow templates are plain text for agents: values are inserted verbatim, never HTML-escaped. */
const VERBATIM = { escape: (value: unknown) => String(value) };
/** Partials are not part of the workflow format; `{{> x}}` renders nothing. */
const NO_PARTIALS = {};

/**
 * Render a workflow's mustache template (an edge prompt or location, an `on.github` input or
 * key) against `view`. Throws mustache's own error on a malformed template.
 */
export function renderVerbatim(template: string, view: Record<string, unknown>): string {
  return mustache.render(template, view, NO_PARTIALS, VERBATIM);
}

/**
 * `renderVerbatim`, with a malformed template reported as `code` (MODERATOR while a thread runs,
 * WORKFLOW_INVALID when an event is mapped) naming `what` was rendered.
 */
export function renderTemplate(
  template: string,
  view: Record<string, unknown>,
  what: string,
  code: ErrorCode,
): string {
  try {
    return renderVerbatim(template, view);
  } catch (error) {
    throw new UwfError(
      code,
      `cannot render ${what} ${JSON.stringify(template)}: ${errorMessage(error)}`,
      {
        hint: "Fix the mustache template in the workflow (`uwf workflow validate` reports template errors).",
      },
    );
  }
}
