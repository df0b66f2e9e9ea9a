import type { NotifyMoment, ThreadPointer, UwfEvent } from "@united-workforce/protocol";
import type { NotifyEntry } from "@united-workforce/store";
import {
  type EventStream,
  errorMessage,
  KILL_GRACE,
  runProcessGroup,
} from "@united-workforce/util";

/** How long a notifier may take when its entry does not say (`timeoutSeconds`). */
const DEFAULT_TIMEOUT_SECONDS = 10;

/** What a command reads on stdin and a webhook receives (with `text`): one per notification. */
export interface NotificationDocument {
  event: NotifyMoment;
  thread: string;
  /** The thread's title; null when it has none (or its pointer could not be read). */
  title: string | null;
  workflow: string | null;
  role: string | null;
  /** Why the thread waits; the `$END` edge's message when it completed. */
  reason: string | null;
  /** The suspension's kind (question, human, failure, fanout, budget, guard); null when completed. */
  kind: string | null;
  /** When it happened (the event's time, ISO 8601 UTC). */
  at: string;
  /**
   * With `dashboard.publicUrl` set, on a wait: a signed link that opens the thread's answer
   * form in the web view, once, until it expires (`dashboard.linkHours`).
   */
  link?: string;
}

/** The moment an event is, for `notify:`; null for an event no entry can ask for. */
export function notifyMoment(event: UwfEvent): NotifyMoment | null {
  if (event.event === "thread.completed") return "completed";
  if (event.event !== "thread.suspended") return null;
  switch (event.kind) {
    case "question":
    case "human":
      return "waiting";
    case "failure":
    case "fanout":
      return "failed";
    case "budget":
    case "guard":
      return "budget";
    default:
      // `retry`: the exec retries by itself; nobody needs to act.
      return null;
  }
}

/** The document for a matching event, with what the thread's pointer adds (when read). */
export function notificationDocument(
  moment: NotifyMoment,
  event: Extract<UwfEvent, { event: "thread.suspended" | "thread.completed" }>,
  pointer: ThreadPointer | null,
  link: string | null = null,
): NotificationDocument {
  const suspended = event.event === "thread.suspended" ? event : null;
  const doc: NotificationDocument = {
    event: moment,
    thread: event.thread,
    title: pointer?.title ?? null,
    workflow: pointer?.workflow ?? null,
    role: suspended?.role ?? pointer?.currentRole ?? null,
    reason: suspended ? suspended.reason : (event as { message: string | null }).message,
    kind: suspended?.kind ?? null,
    at: event.ts,
  };
  if (link !== null) doc.link = link;
  return doc;
}

/** The one line a chat shows (Slack's `text`): which thread, and what happened to it. */
export function notificationText(doc: NotificationDocument): string {
  const name = doc.title === null ? doc.thread : `"${doc.title}" (${doc.thread})`;
  const workflow = doc.workflow === null ? "" : ` [${doc.workflow}]`;
  const what =
    doc.event === "completed"
      ? "completed"
      : doc.event === "waiting"
        ? `waits for an answer at ${doc.role}`
        : doc.event === "failed"
          ? `failed at ${doc.role}`
          : `stopped at a budget before ${doc.role}`;
  const reason = doc.reason ? `: ${doc.reason}` : "";
  const link = doc.link === undefined ? "" : `\nAnswer: ${doc.link}`;
  return `uwf: thread ${name}${workflow} ${what}${reason}${link}`;
}

export interface NotifierOptions {
  entries: readonly NotifyEntry[];
  events: EventStream;
  /** The thread's pointer, for its title and workflow; rejects are taken as "not known". */
  readPointer(thread: string): Promise<ThreadPointer>;
  cwd: string;
  env: Record<string, string | undefined>;
  /**
   * The answer link of a thread that waits (`dashboard.publicUrl`); null when it does not
   * wait. Absent: notifications carry no link.
   */
  answerLink?(pointer: ThreadPointer): string | null;
}

/**
 * Subscribe `notify:`'s entries to the event stream. Each notification is sent in the
 * background; one that fails is logged as `notify.failed` and changes nothing else. `settled`
 * waits for those in flight (each is bounded by its timeout), so a command that ends right
 * after its thread does not drop them.
 */
export function attachNotifier(options: NotifierOptions): { settled(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  options.events.subscribe((event) => {
    if (event.event !== "thread.suspended" && event.event !== "thread.completed") return;
    const moment = notifyMoment(event);
    if (moment === null) return;
    const entries = options.entries.filter((entry) => entry.on.includes(moment));
    if (entries.length === 0) return;
    const sent = (async () => {
      const pointer = await options.readPointer(event.thread).catch(() => null);
      const doc = notificationDocument(
        moment,
        event,
        pointer,
        answerLink(options, moment, pointer),
      );
      await Promise.all(entries.map((entry) => deliver(options, entry, doc)));
    })();
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  });
  return {
    async settled() {
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

/** The link to put in the notification, if any; one that cannot be made is logged, not sent. */
function answerLink(
  options: NotifierOptions,
  moment: NotifyMoment,
  pointer: ThreadPointer | null,
): string | null {
  if (options.answerLink === undefined || moment === "completed" || pointer === null) return null;
  try {
    return options.answerLink(pointer);
  } catch (error) {
    options.events.emit("notify.failed", {
      thread: pointer.thread,
      on: moment,
      notifier: "answer link",
      reason: errorMessage(error),
    });
    return null;
  }
}

async function deliver(
  options: NotifierOptions,
  entry: NotifyEntry,
  doc: NotificationDocument,
): Promise<void> {
  const timeoutMs = (entry.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const notifier =
    entry.command !== undefined ? entry.command.join(" ") : webhookOrigin(entry.webhook ?? "");
  let failure: string | null;
  try {
    failure =
      entry.command !== undefined
        ? await runCommand(options, entry.command, doc, timeoutMs)
        : await postWebhook(entry.webhook ?? "", doc, timeoutMs);
  } catch (error) {
    // fetch says only "fetch failed"; its cause says why (ECONNREFUSED, a timeout).
    const cause = (error as { cause?: unknown }).cause;
    failure =
      cause === undefined ? errorMessage(error) : `${errorMessage(error)}: ${errorMessage(cause)}`;
  }
  if (failure !== null) {
    options.events.emit("notify.failed", {
      thread: doc.thread,
      on: doc.event,
      notifier,
      reason: failure,
    });
  }
}

/** Run the command with the document on stdin; why it failed, or null. */
async function runCommand(
  options: NotifierOptions,
  argv: readonly string[],
  doc: NotificationDocument,
  timeoutMs: number,
): Promise<string | null> {
  const [command = "", ...args] = argv;
  const outcome = await runProcessGroup({
    command,
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: { text: `${JSON.stringify(doc)}\n` },
    graceMs: KILL_GRACE.nested,
    timeoutMs,
    stderr: { tailChars: 500 },
  });
  if (outcome.timedOut) return `timed out after ${timeoutMs / 1000} s`;
  if (outcome.exitCode === 0) return null;
  const said = outcome.stderr.tail.trim();
  const how =
    outcome.exitCode === null ? `ended by ${outcome.signal}` : `exited with ${outcome.exitCode}`;
  return said === "" ? how : `${how}: ${said}`;
}

/** POST the document with a Slack-compatible `text`; why it failed, or null. */
async function postWebhook(
  url: string,
  doc: NotificationDocument,
  timeoutMs: number,
): Promise<string | null> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: notificationText(doc), ...doc }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  // The body is not needed, but read so the connection is released.
  await response.arrayBuffer().catch(() => undefined);
  return response.ok ? null : `HTTP ${response.status} ${response.statusText}`.trim();
}

/** A webhook's URL often holds its secret (Slack's do, in the path): the log names the origin. */
function webhookOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "webhook";
  }
}
