import type { IncomingMessage, ServerResponse } from "node:http";
import type { GithubEvent } from "@united-workforce/engine";
import type { ThreadWorktree, WorkflowPayload } from "@united-workforce/protocol";
import { errorFields, isUwfError } from "@united-workforce/util";
import { type AnswerContext, inBackground } from "./answer.js";
import { json, readBody } from "./respond.js";

/** GitHub caps a delivery at 25 MB: a longer body is refused (413) before it is checked. */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

/**
 * The most steps a thread started by a delivery runs in the background before it stops: the
 * workflow's guards and config.yaml's `limits` stop it sooner; this only ends a runaway loop.
 */
export const TRIGGERED_RUN_STEPS = 100;

/** Where a triggered thread runs: the server's folder, or its own worktree. */
export type PlaceThread = (
  thread: string,
  workflow: WorkflowPayload,
) => Promise<{ cwd: string; worktree?: ThreadWorktree }>;

export interface HookContext extends AnswerContext {
  /** `webhooks.github`'s secret; null: the endpoint is closed. */
  githubSecret: string | null;
  /** The server's folder: where a triggered thread runs unless its workflow asks for a worktree. */
  cwd: string;
  placeThread: PlaceThread;
}

/** One thread a delivery maps to: started now, or found (the same event came before). */
export interface HookThread {
  workflow: string;
  thread: string;
  title: string;
  started: boolean;
}

/** What `POST /hooks/github` answers: the event, and each thread it started or found. */
export interface HookDocument {
  event: string;
  delivery: string | null;
  threads: HookThread[];
  /** Workflows that declare the event but could not start from it (inputs it does not give). */
  refused: { workflow: string; code: string; message: string; hint: string | null }[];
}

/**
 * `POST /hooks/github`: a delivery signed with `webhooks.github`'s secret (X-Hub-Signature-256,
 * checked with GitHub's own @octokit/webhooks-methods, loaded only here) starts every
 * registered workflow whose `on.github` declares its event, once: the thread id derives from
 * the workflow and the event's key, so a redelivery finds its thread and runs nothing again.
 * Each thread it starts runs in the background in this process. A bad or missing signature is
 * 401 and starts nothing; without a secret configured the endpoint does not exist (404).
 */
export async function githubHookRoute(
  c: HookContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const arrived = performance.now();
  const refuse = (status: number, code: string, message: string, hint: string | null = null) =>
    json(res, { error: { code, message, hint } }, status);
  if (c.githubSecret === null) {
    return refuse(404, "NOT_FOUND", "webhooks.github is not configured", NO_SECRET_HINT);
  }
  const body = await readBody(req, MAX_DELIVERY_BYTES);
  const signature = req.headers["x-hub-signature-256"];
  if (typeof signature !== "string" || !(await signedBy(c.githubSecret, body, signature))) {
    return refuse(
      401,
      "SIGNATURE_INVALID",
      "the delivery's X-Hub-Signature-256 is missing or does not match webhooks.github's secret",
      "Give the GitHub webhook the same secret as config.yaml's webhooks.github.",
    );
  }
  const name = req.headers["x-github-event"];
  const delivery = req.headers["x-github-delivery"];
  const payload = parsePayload(body, req.headers["content-type"]);
  if (typeof name !== "string" || payload === undefined) {
    return refuse(400, "USAGE", "a delivery needs X-GitHub-Event and a JSON payload");
  }
  const event: GithubEvent = {
    name,
    payload,
    ...(typeof delivery === "string" ? { delivery } : {}),
  };
  const doc = await startMatching(c, event);
  await Promise.all(doc.threads.filter((t) => t.started).map((t) => runTriggered(c, t.thread)));
  c.events.emit("webhook.delivery", {
    githubEvent: doc.event,
    delivery: doc.delivery,
    started: doc.threads.filter((t) => t.started).map((t) => t.thread),
    found: doc.threads.filter((t) => !t.started).map((t) => t.thread),
    refused: doc.refused.map((r) => r.workflow),
    durationMs: Math.round(performance.now() - arrived),
  });
  json(res, doc, doc.threads.length > 0 ? 202 : 200);
}

const NO_SECRET_HINT =
  "Set webhooks.github.secretEnv (or secret) in config.yaml and start uwf dashboard again.";

async function signedBy(secret: string, body: string, signature: string): Promise<boolean> {
  const { verify } = await import("@octokit/webhooks-methods");
  // A malformed header makes verify throw: it is a bad signature like any other.
  return verify(secret, body, signature).catch(() => false);
}

/** The payload as GitHub sends it: JSON, or a form with a `payload` field (its other type). */
function parsePayload(body: string, type: string | undefined): unknown {
  const text = type?.startsWith("application/x-www-form-urlencoded")
    ? new URLSearchParams(body).get("payload")
    : body;
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Every registered workflow's current version that declares the event, started once each. */
async function startMatching(c: HookContext, event: GithubEvent): Promise<HookDocument> {
  const engine = await import("@united-workforce/engine");
  const { store } = c.runner;
  const doc: HookDocument = {
    event: engine.githubEventName(event),
    delivery: event.delivery ?? null,
    threads: [],
    refused: [],
  };
  for (const entry of await store.registry.list()) {
    const workflow = await engine.loadTriggeredWorkflow(store.cas, entry.current);
    if (workflow.payload.on?.github === undefined) continue;
    try {
      const match = engine.matchGithubEvent(workflow, event);
      if (!match.matched) continue;
      const { pointer, started } = await engine.startTriggeredThread(store, {
        workflow: { name: entry.name, hash: entry.current },
        match,
        cwd: c.cwd,
        place: (thread) => c.placeThread(thread, workflow.payload),
      });
      if (started) {
        c.events.emit("thread.start", {
          thread: pointer.thread,
          workflow: pointer.workflow,
          title: pointer.title ?? match.title,
          ...(pointer.worktree && {
            worktree: pointer.worktree.path,
            branch: pointer.worktree.branch,
          }),
        });
      }
      doc.threads.push({
        workflow: entry.name,
        thread: pointer.thread,
        title: pointer.title ?? match.title,
        started,
      });
    } catch (error) {
      // One workflow the event does not fit (its inputs) does not keep the others from starting.
      if (!isUwfError(error)) throw error;
      const { code, message, hint } = errorFields(error);
      doc.refused.push({ workflow: entry.name, code, message, hint });
    }
  }
  return doc;
}

/**
 * `uwf thread exec <id> -c TRIGGERED_RUN_STEPS` in this process, going on after the delivery is
 * answered; resolves once its first step has started (or the run has ended), so the answer
 * means the thread runs. Its events reach the log and the pages; an error that stops it before
 * its first step is logged as a background worker's is (`exec.error`). Stopping the server
 * interrupts it as Ctrl-C does, and waits for it.
 */
async function runTriggered(c: HookContext, thread: string): Promise<void> {
  try {
    await inBackground(c, thread, () => c.runner.exec(thread, { count: TRIGGERED_RUN_STEPS }));
  } catch (error) {
    const { code, message, hint, exitCode } = errorFields(error);
    c.events.emit("exec.error", { thread, code, message, hint, exitCode });
  }
}
