import { isPlainObject } from "@united-workforce/protocol";
import { nearestWord } from "@united-workforce/util";
import { unknownKey } from "./messages.js";
import { propertiesOf, type SchemaMap } from "./schema-shape.js";
import { findTemplateProblems } from "./template-variables.js";

/**
 * A workflow's `on:`: what starts it by itself. Only `github` today: the GitHub events that
 * start a thread, the thread's inputs as templates over the event, and the event's identity
 * (`key`), from which the thread id is derived (triggers/github.ts).
 */

export const TRIGGER_KINDS = ["github"];
const GITHUB_KEYS = ["events", "inputs", "key"];
/** `issues`, `issues.opened`, `pull_request_review_comment.created`: GitHub's own spelling. */
export const GITHUB_EVENT_PATTERN = /^[a-z][a-z_]*(?:\.[a-z][a-z_]*)?$/;
/** What `on.github` templates read: the payload, its event name and its delivery id. */
export const GITHUB_TEMPLATE_FIELDS: SchemaMap = {
  event: { type: "object" },
  event_name: { type: "string" },
  delivery: { type: "string" },
};

/**
 * Shape rules of `on:`; every problem is pushed to `errors`. `inputs` is the workflow's declared
 * inputs schema (null when absent or malformed): each `on.github.inputs` name must be one of
 * its properties. A definition that passes is stored as written (materialise.ts).
 */
export function checkTriggersShape(
  raw: unknown,
  inputs: SchemaMap | null,
  inputsDeclared: boolean,
  errors: string[],
): void {
  if (raw === undefined) return;
  if (!isPlainObject(raw)) {
    errors.push(
      '"on" must be a mapping of what starts the workflow (on: { github: { events: [issues.opened] } })',
    );
    return;
  }
  for (const key of Object.keys(raw)) {
    if (!TRIGGER_KINDS.includes(key))
      errors.push(unknownKey("on: unknown key", key, TRIGGER_KINDS));
  }
  if (raw.github !== undefined) checkGithubShape(raw.github, inputs, inputsDeclared, errors);
}

function checkGithubShape(
  raw: unknown,
  inputs: SchemaMap | null,
  inputsDeclared: boolean,
  errors: string[],
): void {
  if (!isPlainObject(raw)) {
    errors.push("on.github must be a mapping (events, inputs, key)");
    return;
  }
  for (const key of Object.keys(raw)) {
    if (!GITHUB_KEYS.includes(key))
      errors.push(unknownKey("on.github: unknown key", key, GITHUB_KEYS));
  }
  checkEvents(raw.events, errors);
  if (raw.inputs !== undefined) checkInputTemplates(raw.inputs, inputs, inputsDeclared, errors);
  if (raw.key !== undefined) {
    if (typeof raw.key !== "string" || raw.key.trim() === "") {
      errors.push(
        'on.github.key must be a template naming the event\'s identity ("{{{event.repository.full_name}}}#{{{event.issue.number}}}")',
      );
    } else {
      checkTemplate("on.github.key", raw.key, errors);
    }
  }
}

function checkEvents(raw: unknown, errors: string[]): void {
  if (raw === undefined) {
    errors.push('on.github: missing required field "events" (e.g. events: [issues.opened])');
    return;
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.push(
      "on.github.events must be a non-empty list of event names (issues.opened, issue_comment.created, push, …)",
    );
    return;
  }
  raw.forEach((event, index) => {
    if (typeof event !== "string" || !GITHUB_EVENT_PATTERN.test(event)) {
      errors.push(
        `on.github.events[${index}]: ${JSON.stringify(event)} is not an event name: write <event> or <event>.<action> as GitHub spells them (issues, issues.opened, pull_request.synchronize)`,
      );
    }
  });
}

function checkInputTemplates(
  raw: unknown,
  inputs: SchemaMap | null,
  inputsDeclared: boolean,
  errors: string[],
): void {
  if (!isPlainObject(raw)) {
    errors.push(
      'on.github.inputs must be a mapping of input name to template (issue: "{{{event.issue.number}}}")',
    );
    return;
  }
  if (!inputsDeclared) {
    errors.push(
      'on.github.inputs: the workflow declares no inputs (add an "inputs:" JSON Schema declaring each input the event fills)',
    );
  }
  const declared = Object.keys(propertiesOf(inputs) ?? {});
  for (const [name, template] of Object.entries(raw)) {
    const where = `on.github.inputs.${name}`;
    if (inputs !== null && !declared.includes(name)) {
      const near = nearestWord(name, declared);
      errors.push(
        near === undefined
          ? `${where}: the workflow's inputs declare no "${name}" (declared: ${declared.join(", ") || "none"})`
          : `${where}: the workflow's inputs declare no "${name}" (did you mean "${near}"?)`,
      );
    }
    if (typeof template !== "string") {
      errors.push(`${where} must be a template string ("{{{event.issue.number}}}")`);
      continue;
    }
    checkTemplate(where, template, errors);
  }
}

/** A template reads only `event…`, `event_name` and `delivery`, and must parse. */
function checkTemplate(where: string, template: string, errors: string[]): void {
  for (const problem of findTemplateProblems(template, GITHUB_TEMPLATE_FIELDS)) {
    switch (problem.kind) {
      case "syntax":
        errors.push(`${where}: the mustache template does not parse: ${problem.message}`);
        break;
      case "partial":
        errors.push(`${where}: mustache partial {{> ${problem.name}}} is not supported`);
        break;
      case "filter":
        errors.push(
          `${where}: ${problem.tag} is a Liquid filter; mustache has none (write {{{${problem.variable}}}})`,
        );
        break;
      case "missing": {
        const head = problem.variable.split(".")[0]!;
        const near = nearestWord(head, Object.keys(GITHUB_TEMPLATE_FIELDS));
        errors.push(
          `${where}: template variable "${problem.variable}" is not there: templates read event.<field>, event_name and delivery${near === undefined ? "" : ` (did you mean "${near}"?)`}`,
        );
        break;
      }
      case "object":
        errors.push(
          `${where}: template variable "${problem.variable}" is an object and renders as [object Object]`,
        );
        break;
    }
  }
}
