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
