import type { SuspendKind } from "@united-workforce/protocol";
import type { FormAnswer } from "../answer.js";
import type { FormField, HumanForm, WaitView } from "../data/wait.js";
import { type Html, html } from "../html.js";
import { when } from "./layout.js";

/** What a human answer form was sent with, to show again beside what was wrong with it. */
export interface SentAnswer {
  error: string;
  values: URLSearchParams;
}

/** Each kind of wait, as the page names it. */
export const WAIT_LABELS: Record<SuspendKind, string> = {
  question: "question",
  human: "waiting for you",
  failure: "failed",
  retry: "retry pending",
  guard: "guard",
  budget: "budget",
  fanout: "fan-out",
};

/**
 * What a suspended thread waits for, labelled as what it is, with the one action that moves it
 * on: a human role's form, a question's answer, or resuming (a failure, a retry, a guard, a
 * budget, a fan-out), saying what resuming does. `action`: where the form posts (an answer
 * link's page posts to its link).
 */
export function waitPanel(
  thread: string,
  wait: WaitView,
  csrf: string,
  sent: SentAnswer | null,
  action = `/threads/${thread}/answer`,
): Html {
  const heading = headingOf(wait);
  const csrfInput = html`<input type="hidden" name="csrf" value="${csrf}">`;
  const kind = html`<span class="badge w-${wait.kind}" data-field="wait-kind">${WAIT_LABELS[wait.kind]}</span>`;
  if (wait.kind === "human" && wait.form !== null) {
    return html`<section class="ask wait-human" aria-labelledby="ask-h"><h2 id="ask-h">${kind} ${heading}</h2>
<blockquote class="question" id="question">${wait.prompt ?? wait.reason}</blockquote>
${sent ? html`<p class="error" role="alert" id="answer-error">${sent.error}</p>` : ""}
<form method="post" action="${action}" class="answer human-answer">${csrfInput}
${humanFields(wait.form, sent?.values ?? null)}
<label for="answer-body">Body (markdown, optional)</label>
<textarea id="answer-body" name="body" rows="3">${sent?.values.get("body") ?? ""}</textarea>
<label class="check"><input type="checkbox" name="next" value="1"${sent === null || sent.values.get("next") === "1" ? html` checked` : ""}> Then run the next step (as <code>uwf thread exec</code>)</label>
<button type="submit">Send the answer</button>
<p class="dim">Same as <code>uwf thread answer ${thread} --status &hellip; --set &hellip;</code>: checked against the role's schema, stored as its step, then the thread routes on.</p>
</form></section>`;
  }
  const question = wait.kind === "question";
  return html`<section class="ask wait-${wait.kind}" aria-labelledby="ask-h"><h2 id="ask-h">${kind} ${heading}</h2>
<blockquote class="question" id="question">${wait.reason}</blockquote>
<p class="resume-means">${resumeMeans(wait)}</p>
<form method="post" action="${action}" class="answer">${csrfInput}
<label for="answer">${question ? "Your answer" : "A note for the step (optional)"}</label>
<textarea id="answer" name="answer" rows="4"${question ? html` required` : ""}></textarea>
<button type="submit">${buttonOf(wait.kind)}</button>
<p class="dim">Same as <code>uwf thread resume ${thread}${question ? ' -p "…"' : ""}</code>: runs the step in the background.</p>
</form></section>`;
}

function headingOf(wait: WaitView): string {
  switch (wait.kind) {
    case "question":
      return `${wait.role} asks`;
    case "human":
      return `${wait.role} is answered by a person`;
    case "failure":
      return `${wait.role} failed`;
    case "retry":
      return `${wait.role} failed for now`;
    case "guard":
      return `Stopped by a workflow guard before ${wait.role}`;
    case "budget":
      return `Stopped by a budget before ${wait.role}`;
    case "fanout":
      return `Waiting on its fan-out into ${wait.role}`;
  }
}

/** What resuming does for this kind of wait. */
function resumeMeans(wait: WaitView): Html {
  const role = html`<b>${wait.role}</b>`;
  switch (wait.kind) {
    case "question":
      return html`Answering runs ${role} again with its question and your answer.`;
    case "failure":
      return html`The head did not move. Retrying runs ${role} again with the same instruction, and your note if you write one.`;
    case "retry":
      return html`The agent failed transiently (a rate limit, a server error). ${wait.retryAfter ? html`<code>uwf thread exec --wait</code> would retry after ${when(wait.retryAfter)}; ` : ""}retrying now runs ${role} again at once.`;
    case "guard":
      return html`The workflow's ${wait.guard === "maxVisits" ? html`<code>maxVisits</code> of ${role}` : html`<code>maxSteps</code>`} was reached. Going on runs ${role} once past the guard.`;
    case "budget":
      return html`This run's budget (<code>--max-cost</code>, <code>--max-steps</code> or config <code>limits</code>) was reached before ${role} started. Going on starts a new run, with a fresh budget, at ${role}.`;
    case "fanout":
      return html`Its children cannot all end: one failed (under <code>failure: all</code>) or one waits. Resuming re-runs the failed children, then joins into ${role}. <a href="#children-h">See the children</a>.`;
    case "human":
      return html`Answer it with <code>uwf thread answer</code>.`;
  }
}

function buttonOf(kind: SuspendKind): string {
  switch (kind) {
    case "question":
      return "Answer and resume";
    case "failure":
    case "retry":
      return "Retry the step";
    case "fanout":
      return "Re-run the failed children";
    default:
      return "Run the step";
  }
}

/**
 * One choice per status, each followed by its fields: a stylesheet rule shows only the chosen
 * status's fields, so the form works without the script. No control is `required` (a hidden
 * one would block sending): the engine checks the answer, as `uwf thread answer` does.
 */
function humanFields(form: HumanForm, sent: URLSearchParams | null): Html {
  const chosen = sent?.get("status") ?? form.statuses[0]?.status;
  return html`<fieldset class="statuses"><legend>Your answer: its <code>$status</code>, then its fields</legend>${form.statuses.map(
    ({ status, fields }) => {
      const id = `st-${slug(status)}`;
      return html`<div class="status-choice"><input type="radio" class="choice" name="status" id="${id}" value="${status}"${status === chosen ? html` checked` : ""}><label for="${id}" class="badge out">${status}</label><div class="fields">${
        fields.length === 0
          ? html`<p class="dim">No fields.</p>`
          : fields.map((f) => fieldControl(status, f, sent?.get(fieldName(status, f.name)) ?? ""))
      }</div></div>`;
    },
  )}</fieldset>`;
}

/** The form name of a status's field: what the server reads back into `--set name=value`. */
export function fieldName(status: string, field: string): string {
  return `f.${status}.${field}`;
}

/** A human answer form's fields: those of the chosen status, by their names. */
export function formAnswer(form: URLSearchParams): FormAnswer {
  const status = form.get("status");
  const prefix = status === null ? null : fieldName(status, "");
  const fields: [string, string][] = [];
  for (const [name, value] of form) {
    if (prefix !== null && name.startsWith(prefix)) fields.push([name.slice(prefix.length), value]);
  }
  return { status, fields, body: form.get("body") ?? "" };
}

function fieldControl(status: string, field: FormField, value: string): Html {
  const id = `f-${slug(status)}-${slug(field.name)}`;
  const name = fieldName(status, field.name);
  const label = html`<label for="${id}">${field.name} <span class="dim">(${field.required ? "required" : "optional"}${field.types.length > 0 ? `, ${field.types.join(" or ")}` : ""})</span></label>${field.description ? html`<div class="dim field-about">${field.description}</div>` : ""}`;
  const options = (values: string[]) =>
    html`<select id="${id}" name="${name}"><option value="">${field.required ? "choose…" : "(none)"}</option>${values.map(
      (v) => html`<option${v === value ? html` selected` : ""}>${v}</option>`,
    )}</select>`;
  let control: Html;
  if (field.choices !== null) control = options(field.choices);
  else if (field.types.length > 0 && field.types.every((t) => t === "boolean" || t === "null"))
    control = options(["true", "false"]);
  else if (
    field.types.length > 0 &&
    field.types.every((t) => t === "integer" || t === "number" || t === "null")
  )
    control = html`<input type="number" id="${id}" name="${name}" value="${value}"${field.types.includes("integer") ? "" : html` step="any"`}>`;
  else if (field.types.includes("string") || field.types.length === 0)
    control = html`<textarea id="${id}" name="${name}" rows="2">${value}</textarea>`;
  else
    control = html`<textarea id="${id}" name="${name}" rows="3" placeholder="YAML or JSON, e.g. [a, b]">${value}</textarea>`;
  return html`<div class="field">${label}${control}</div>`;
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}
