import type { EngineEvent } from "@united-workforce/engine";
import type { Usage } from "@united-workforce/protocol";
import type { LogEvent } from "./follow-log.js";
import type { ProgressEvent } from "./progress.js";

/** An event of this process's engine, as progress shows it. */
export function progressFromEngine(event: EngineEvent, atMs: number): ProgressEvent {
  switch (event.type) {
    case "step.started":
      return {
        type: "step.started",
        thread: event.thread,
        role: event.role,
        agent: event.agent,
        stepNumber: event.stepNumber,
        atMs: event.atMs,
      };
    case "step.finished":
      return {
        type: "step.finished",
        thread: event.thread,
        role: event.step.role,
        status: event.step.status,
        hash: event.step.hash,
        durationMs: event.step.durationMs,
        usage: event.usage,
        atMs,
      };
    case "fanout.started":
      return {
        type: "fanout.started",
        thread: event.thread,
        role: event.role,
        children: event.children.length,
        concurrency: event.concurrency,
        atMs,
      };
    default:
      return { ...event, atMs };
  }
}

/**
 * A process-log line (what another process's engine logged) as progress shows it, or null for
 * events progress does not show. Lines that lack a field progress needs are skipped: the log is
 * read, never trusted to be well formed.
 */
export function progressFromLog(event: LogEvent): ProgressEvent | null {
  const atMs = Date.parse(event.ts);
  const thread = text(event.thread);
  const role = text(event.role);
  if (Number.isNaN(atMs) || thread === null) return null;
  switch (event.event) {
    case "step.start": {
      const agent = text(event.agent);
      const stepNumber = event.stepNumber;
      if (role === null || agent === null || typeof stepNumber !== "number") return null;
      return { type: "step.started", thread, role, agent, stepNumber, atMs };
    }
    case "adapter.output": {
      const line = text(event.line);
      if (role === null || line === null) return null;
      return { type: "adapter.output", thread, role, line, atMs };
    }
    case "step.done": {
      const status = text(event.status);
      const hash = text(event.step);
      const durationMs = event.durationMs;
      if (role === null || status === null || hash === null || typeof durationMs !== "number")
        return null;
      const usage = isRecord(event.usage) ? (event.usage as Usage) : null;
      return { type: "step.finished", thread, role, status, hash, durationMs, usage, atMs };
    }
    case "step.failed": {
      const reason = text(event.reason);
      if (role === null || reason === null) return null;
      return { type: "step.failed", thread, role, reason, atMs };
    }
    case "step.retry": {
      const { retry, maxRetries, delayMs } = event;
      if (
        role === null ||
        typeof retry !== "number" ||
        typeof maxRetries !== "number" ||
        typeof delayMs !== "number"
      )
        return null;
      return {
        type: "step.retrying",
        thread,
        role,
        retry,
        maxRetries,
        delayMs,
        reason: text(event.reason) ?? "",
        atMs,
      };
    }
    case "thread.suspended": {
      const reason = text(event.reason);
      const kind = event.kind;
      if (role === null || reason === null || (kind !== "question" && kind !== "failure"))
        return null;
      return { type: "suspended", thread, role, reason, kind, atMs };
    }
    case "exec.wait": {
      const until = text(event.retryAfter);
      if (role === null || until === null) return null;
      return { type: "waiting", thread, role, until, atMs };
    }
    case "thread.completed":
      return { type: "completed", thread, message: text(event.message), atMs };
    case "fanout.started": {
      const { children, concurrency } = event;
      if (role === null || typeof children !== "number" || typeof concurrency !== "number")
        return null;
      return { type: "fanout.started", thread, role, children, concurrency, atMs };
    }
    case "fanout.child": {
      const child = text(event.child);
      const status = text(event.status);
      if (child === null || status === null || typeof event.index !== "number") return null;
      const reason = text(event.reason);
      return {
        type: "fanout.child",
        thread,
        child,
        index: event.index,
        status,
        ...(reason === null ? {} : { reason }),
        atMs,
      };
    }
    case "fanout.joined": {
      const { completed, failed, stepNumber } = event;
      if (role === null || typeof completed !== "number" || typeof failed !== "number") return null;
      return {
        type: "fanout.joined",
        thread,
        role,
        ...(typeof stepNumber === "number" ? { stepNumber } : {}),
        completed,
        failed,
        atMs,
      };
    }
    default:
      return null;
  }
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
