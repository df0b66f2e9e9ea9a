import type { Store } from "@united-workforce/store";
import { type EventStream, errorMessage } from "@united-workforce/util";
import { type OtlpSettings, supportedProtocol } from "./otel-env.js";

export interface LiveExportOptions {
  /** What the OTEL_* variables ask for; `url` is set (export is on). */
  settings: OtlpSettings & { url: string };
  events: EventStream;
  store(): Promise<Store>;
  /** Where a failure is said (the CLI's stderr). */
  stderr(text: string): void;
  /** SIGINT: an export in flight ends at once, and none starts after. */
  signal: AbortSignal;
}

/**
 * Live OpenTelemetry export: the spans of every step a command ran (each `step.done` on the
 * event stream, a fan-out's children's too), and a thread's run span once the thread completes
 * or is cancelled, built by the same `threadTrace` as `uwf thread trace`, so both send the same
 * ids. Sent when a run ends (`exec.end`) and when the command ends (`settled`). A failure is
 * said on stderr and logged as `trace.failed`; it never fails the command.
 */
export function attachLiveExport(options: LiveExportOptions): { settled(): Promise<void> } {
  const steps = new Map<string, Set<string>>();
  const ended = new Set<string>();
  const pending = new Set<Promise<void>>();
  const flush = (): void => {
    if (steps.size === 0 && ended.size === 0) return;
    const batch = { steps: new Map(steps), ended: new Set(ended) };
    steps.clear();
    ended.clear();
    const sent = send(options, batch.steps, batch.ended);
    pending.add(sent);
    void sent.finally(() => pending.delete(sent));
  };
  options.events.subscribe((event) => {
    if (event.event === "step.done") {
      const known = steps.get(event.thread) ?? new Set<string>();
      steps.set(event.thread, known.add(event.step));
    } else if (event.event === "thread.completed" || event.event === "thread.cancel") {
      ended.add(event.thread);
    } else if (event.event === "exec.end") {
      flush();
    }
  });
  return {
    async settled() {
      flush();
      while (pending.size > 0) await Promise.all(pending);
    },
  };
}

/** Build, encode and POST one batch; never throws. */
async function send(
  options: LiveExportOptions,
  steps: ReadonlyMap<string, ReadonlySet<string>>,
  ended: ReadonlySet<string>,
): Promise<void> {
  const { settings } = options;
  const threads = [...new Set([...steps.keys(), ...ended])];
  let spans = 0;
  try {
    const protocol = supportedProtocol(settings.protocol);
    if (protocol === null) {
      throw new Error(
        `OTEL_EXPORTER_OTLP_PROTOCOL is "${settings.protocol}": uwf sends http/protobuf or http/json`,
      );
    }
    if (options.signal.aborted) throw new Error("interrupted");
    const [{ threadTrace }, { encodeTraces, postTraces }] = await Promise.all([
      import("@united-workforce/engine"),
      import("./otlp.js"),
    ]);
    const store = await options.store();
    const built = [];
    for (const thread of threads) {
      built.push(
        ...(await threadTrace(store, thread, {
          steps: steps.get(thread) ?? new Set(),
          run: ended.has(thread),
        })),
      );
    }
    spans = built.length;
    if (spans === 0) return;
    const body = await encodeTraces(built, protocol, { serviceName: settings.serviceName });
    await postTraces(settings.url, body, {
      protocol,
      headers: settings.headers,
      timeoutMs: settings.timeoutMs,
      signal: options.signal,
    });
  } catch (error) {
    const reason = errorMessage(error);
    options.stderr(`uwf: the trace was not exported (${reason}); the run is unchanged\n`);
    options.events.emit("trace.failed", { endpoint: settings.url, threads, spans, reason });
  }
}
