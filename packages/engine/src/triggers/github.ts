import {
  isPlainObject,
  type JsonSchema,
  type JsonValue,
  type ThreadPointer,
  type ThreadWorktree,
  type WorkflowPayload,
} from "@united-workforce/protocol";
import type { Cas, Store } from "@united-workforce/store";
import {
  canonicalJson,
  docsUrl,
  encodeBase32,
  isUwfError,
  nodeCrypto,
  UwfError,
} from "@united-workforce/util";
import { collectThreadInputs } from "../threads/inputs.js";
import { createThread } from "../threads/new-thread.js";
import { titleFromText } from "../threads/title.js";
import { renderVerbatim } from "../workflow/render-template.js";
import type { SchemaMap } from "../workflow/schema-shape.js";

/**
 * GitHub triggers (issue 28): a workflow's `on.github` maps an event to a thread. One home for
 * `thread start --event` and the web server's `POST /hooks/github`: both match the event here
 * and start the thread with `startTriggeredThread`, whose id is derived from the workflow's
 * hash and the event's key, so the same event again finds the same thread. No admission
 * database: the store's create-if-absent of a thread pointer is the only record.
 */

/** One GitHub event as a runner or a webhook delivers it. */
export interface GithubEvent {
  /** The event's name: `GITHUB_EVENT_NAME` or the `X-GitHub-Event` header (`issues`, `push`). */
  name: string;
  /** The parsed JSON payload (`GITHUB_EVENT_PATH`'s content, or the webhook's body). */
  payload: unknown;
  /** `X-GitHub-Delivery`, when known: the default key of the event. */
  delivery?: string | undefined;
}

/** A stored (or about to be stored) workflow, with what matching an event reads from it. */
export interface TriggeredWorkflow {
  hash: string;
  payload: WorkflowPayload;
  /** The workflow's `inputs:` schema; null when it declares none. */
  inputs: SchemaMap | null;
  /** The compiled `inputs:` schema (the store's `cas.schemaValidator(schema).validate`). */
  validate?: ((value: unknown) => { valid: boolean; errors: string[] }) | undefined;
}

/** What an event the workflow declares starts. */
export interface GithubEventMatch {
  matched: true;
  /** `issues.opened`, or `push` for an event without an action. */
  event: string;
  /** The thread's inputs, coerced and validated; null when the workflow declares none. */
  inputs: Record<string, JsonValue> | null;
  /** The event's identity: `on.github.key` rendered, else the delivery id, else the payload's hash. */
  key: string;
  /** The thread id derived from the workflow's hash and the key (`triggeredThreadId`). */
  thread: string;
  /** The issue's, pull request's or discussion's title, else a line naming the event. */
  title: string;
  /** A short description of the event: the default task of the thread. */
  prompt: string;
}

/** An event the workflow does not declare: nothing is started. */
export interface GithubEventRefusal {
  matched: false;
  event: string;
  /** What `on.github.events` lists (empty when the workflow declares no GitHub trigger). */
  declared: string[];
}

/** Read a registered workflow's triggers and inputs schema from the store (the webhook's way). */
export async function loadTriggeredWorkflow(
  cas: Pick<Cas, "getPayload" | "get" | "schemaValidator">,
  hash: string,
): Promise<TriggeredWorkflow> {
  const payload = await cas.getPayload<WorkflowPayload>(hash, "workflow");
  if (payload.inputs === undefined) return { hash, payload, inputs: null };
  const inputs = (await cas.get(payload.inputs)).payload as SchemaMap;
  return {
    hash,
    payload,
    inputs,
    validate: cas.schemaValidator(inputs as JsonSchema).validate,
  };
}

/** `issues.opened` for an event whose payload has an action, else the event's name. */
export function githubEventName(event: GithubEvent): string {
  const action = isPlainObject(event.payload) ? event.payload.action : undefined;
  return typeof action === "string" && action !== "" ? `${event.name}.${action}` : event.name;
}

/** Whether `on.github.events` lists the event: by its name alone or with its action. */
export function declaresGithubEvent(declared: readonly string[], event: GithubEvent): boolean {
  return declared.includes(event.name) || declared.includes(githubEventName(event));
}

/**
 * Map an event to the thread it starts: a refusal (with what the workflow declares) when its
 * `on.github.events` does not list the event, else the inputs (`on.github.inputs` rendered
 * against `{ event, event_name, delivery }`, coerced by the declared input types), the key and
 * the derived thread id. Inputs the workflow refuses are INPUT_INVALID.
 */
export function matchGithubEvent(
  workflow: TriggeredWorkflow,
  event: GithubEvent,
): GithubEventMatch | GithubEventRefusal {
  const github = workflow.payload.on?.github;
  const name = githubEventName(event);
  if (github === undefined || !declaresGithubEvent(github.events, event)) {
    return { matched: false, event: name, declared: [...(github?.events ?? [])] };
  }
  const view = { event: event.payload, event_name: event.name, delivery: event.delivery ?? "" };
  const inputs = triggerInputs(workflow, github.inputs ?? {}, view);
  const rendered = github.key === undefined ? "" : render(github.key, view, "on.github.key").trim();
  const key = rendered !== "" ? rendered : defaultKey(event);
  return {
    matched: true,
    event: name,
    inputs,
    key,
    thread: triggeredThreadId(workflow.hash, key),
    title: eventTitle(event),
    prompt: describeGithubEvent(event),
  };
}

/** The UwfError for a refused event: it names the event and what the workflow declares. */
export function eventNotDeclared(workflow: string, refusal: GithubEventRefusal): UwfError {
  if (refusal.declared.length === 0) {
    return new UwfError(
      "EVENT_NOT_DECLARED",
      `workflow "${workflow}" declares no GitHub trigger, so no event starts it`,
      {
        hint: `Declare the events under \`on: { github: { events: [...] } }\` in the workflow (see ${docsUrl("triggers.md")}), or start it without --event.`,
        details: { event: refusal.event, declared: [] },
      },
    );
  }
  return new UwfError(
    "EVENT_NOT_DECLARED",
    `workflow "${workflow}" is not started by the GitHub event ${refusal.event}: it declares ${refusal.declared.join(", ")}`,
    {
      hint: "Nothing was started. Add the event to on.github.events, or give --event-name when the event's name was not taken from GITHUB_EVENT_NAME.",
      details: { event: refusal.event, declared: refusal.declared },
    },
  );
}

/**
 * The thread id an event's key gives in a workflow: the first 128 bits of
 * sha256("uwf github trigger\n" + workflow hash + "\n" + key) in 26 Crockford Base32
 * characters. 128 bits leave the first character at most 7, so the id is a well-formed ULID
 * (THREAD_ID_PATTERN) whose time part is a hash, not a time: ids are not time-ordered, but
 * their first ten characters, the part tables show, still tell threads apart.
 */
export function triggeredThreadId(workflowHash: string, key: string): string {
  const digest = nodeCrypto()
    .createHash("sha256")
    .update(`uwf github trigger\n${workflowHash}\n${key}`)
    .digest();
  return encodeBase32(BigInt(`0x${digest.subarray(0, 16).toString("hex")}`), 26);
}

/** What starting a triggered thread needs beside the match. */
export interface TriggeredStart {
  workflow: { name: string; hash: string };
  match: GithubEventMatch;
  /** The task; the event's description (`match.prompt`) unless given. */
  prompt?: string;
  title?: string;
  cwd: string;
  nowMs?: number;
  /**
   * Where the thread runs, asked only when the thread does not exist yet (a worktree for a
   * `worktree: true` workflow). A place made for a thread another start created first is that
   * thread's own (its path and branch derive from the id), so it is kept.
   */
  place?: (thread: string) => Promise<{ cwd: string; worktree?: ThreadWorktree }>;
}

/**
 * Start the thread an event maps to, once: an existing thread of that id is returned with
 * `started: false`. Two starts racing for one id both end with the one pointer the store's
 * create-if-absent kept (THREAD_EXISTS for the loser, read back), so both report the same id.
 */
export async function startTriggeredThread(
  store: Pick<Store, "cas" | "threads">,
  start: TriggeredStart,
): Promise<{ pointer: ThreadPointer; started: boolean }> {
  const { thread } = start.match;
  if (await store.threads.exists(thread)) {
    return { pointer: await store.threads.get(thread), started: false };
  }
  try {
    const place = start.place === undefined ? { cwd: start.cwd } : await start.place(thread);
    const pointer = await createThread(store, {
      thread,
      workflow: start.workflow.name,
      workflowHash: start.workflow.hash,
      prompt: start.prompt ?? start.match.prompt,
      title: start.title ?? start.match.title,
      cwd: place.cwd,
      createdAtMs: start.nowMs ?? Date.now(),
      ...(start.match.inputs === null ? {} : { inputs: start.match.inputs }),
      ...(place.worktree === undefined ? {} : { worktree: place.worktree }),
    });
    return { pointer, started: true };
  } catch (error) {
    // Lost a race to another start of the same event: its thread is the answer.
    if (
      (isUwfError(error) && error.code === "THREAD_EXISTS") ||
      (await store.threads.exists(thread))
    ) {
      return { pointer: await store.threads.get(thread), started: false };
    }
    throw error;
  }
}

/**
 * A line or two on the event, the task a triggered thread is given by default: what happened,
 * where, and the link to it, so an agent can look further with `gh`.
 */
export function describeGithubEvent(event: GithubEvent): string {
  const payload = isPlainObject(event.payload) ? event.payload : {};
  const repo = field(payload.repository, "full_name");
  const subject = eventSubject(payload);
  const where = repo === undefined ? "" : ` in ${repo}`;
  const lines = [`GitHub event ${githubEventName(event)}${where}.`];
  if (subject !== null) {
    const number = subject.number === undefined ? "" : ` #${subject.number}`;
    const title = subject.title === undefined ? "" : `: ${subject.title}`;
    lines.push(`${subject.kind}${number}${title}`);
    if (subject.url !== undefined) lines.push(subject.url);
  } else if (event.name === "push") {
    const ref = typeof payload.ref === "string" ? payload.ref : undefined;
    const commit = field(payload.head_commit, "message")?.split("\n")[0];
    if (ref !== undefined) lines.push(`Push to ${ref}${commit ? `: ${commit}` : ""}`);
    const compare = typeof payload.compare === "string" ? payload.compare : undefined;
    if (compare !== undefined) lines.push(compare);
  }
  return lines.join("\n");
}

function eventTitle(event: GithubEvent): string {
  const payload = isPlainObject(event.payload) ? event.payload : {};
  const subject = eventSubject(payload);
  const fromSubject = subject?.title === undefined ? "" : titleFromText(subject.title);
  if (fromSubject !== "") return fromSubject;
  const commit = field(payload.head_commit, "message");
  const fromCommit = commit === undefined ? "" : titleFromText(commit);
  if (fromCommit !== "") return fromCommit;
  return titleFromText(describeGithubEvent(event));
}

interface Subject {
  kind: string;
  number?: string;
  title?: string;
  url?: string;
}

/** The issue, pull request or discussion an event is about, when it is about one. */
function eventSubject(payload: Record<string, unknown>): Subject | null {
  for (const [key, kind] of [
    ["pull_request", "Pull request"],
    ["issue", "Issue"],
    ["discussion", "Discussion"],
  ] as const) {
    const subject = payload[key];
    if (!isPlainObject(subject)) continue;
    const found: Subject = {
      kind: key === "issue" && isPlainObject(subject.pull_request) ? "Pull request" : kind,
    };
    const number = subject.number;
    if (typeof number === "number" || typeof number === "string") found.number = String(number);
    const title = field(subject, "title");
    if (title !== undefined) found.title = title;
    const url = field(subject, "html_url");
    if (url !== undefined) found.url = url;
    return found;
  }
  return null;
}

function field(value: unknown, name: string): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const found = value[name];
  return typeof found === "string" ? found : undefined;
}

/** The delivery id, else the sha256 of the payload's canonical JSON (whitespace aside). */
function defaultKey(event: GithubEvent): string {
  if (event.delivery !== undefined && event.delivery !== "") return `delivery:${event.delivery}`;
  const digest = nodeCrypto()
    .createHash("sha256")
    .update(canonicalJson(event.payload as JsonValue))
    .digest("hex");
  return `sha256:${digest}`;
}

/**
 * `on.github.inputs` rendered and coerced the way `--input name=value` is: a template gives
 * text, and the declared type reads it (digits as an integer, true|false as a boolean, JSON as
 * an array or object). A template that renders empty gives no input, so a required one is
 * reported missing rather than as "".
 */
function triggerInputs(
  workflow: TriggeredWorkflow,
  templates: Record<string, string>,
  view: Record<string, unknown>,
): Record<string, JsonValue> | null {
  const pairs: string[] = [];
  for (const [name, template] of Object.entries(templates)) {
    const text = render(template, view, `on.github.inputs.${name}`);
    if (text !== "") pairs.push(`${name}=${text}`);
  }
  if (workflow.inputs === null) return null;
  try {
    return collectThreadInputs(
      workflow.payload.name,
      workflow.inputs,
      {
        pairs,
        pairLabel: (name, text) =>
          `on.github.inputs.${name} rendered ${JSON.stringify(text)}, which`,
      },
      workflow.validate,
    );
  } catch (error) {
    if (!isUwfError(error) || error.code !== "INPUT_INVALID") throw error;
    throw new UwfError("INPUT_INVALID", `the event gives ${error.message}`, {
      hint: "Nothing was started. Fix on.github.inputs in the workflow so each template reads the event's field (`uwf workflow show` prints them), or make the input optional.",
      details: error.details,
    });
  }
}

function render(template: string, view: Record<string, unknown>, what: string): string {
  try {
    return renderVerbatim(template, view);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UwfError(
      "WORKFLOW_INVALID",
      `cannot render ${what} ${JSON.stringify(template)}: ${reason}`,
      {
        hint: "Fix the mustache template in the workflow (`uwf workflow validate` reports template errors).",
      },
    );
  }
}
