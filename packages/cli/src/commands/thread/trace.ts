import { resolve } from "node:path";
import type { ThreadTraceDocument } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { outputFile } from "../output-file.js";

export default defineCommand({
  path: ["thread", "trace"],
  interruptible: true,
  summary: "rebuild a thread's OpenTelemetry trace from its history and write or send it",
  description: [
    "The trace follows the OpenTelemetry GenAI conventions: the thread's run (`invoke_workflow`), each step (`invoke_agent <role>`, with its model, token usage, cost and status), and under a step its model turns (`chat`) and tool calls (`execute_tool`) where the agent recorded them. Fan-out children's runs hang under the step that fanned them out, in the same trace. Turns and tool calls have no recorded times: they share their step's time (`uwf.timing: estimated`).",
    "Every id is derived from the thread's nodes (the trace id from its StartNode, a span id from its step), so exporting again, from any machine holding the thread, gives the same ids and a collector merges the exports; a live export (`OTEL_EXPORTER_OTLP_ENDPOINT` set during `thread exec`) uses the same ids.",
    "Without -o or --otlp the OTLP JSON request is printed. `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_SERVICE_NAME` apply to --otlp too.",
  ].join("\n"),
  args: [{ name: "thread", type: "thread", description: "thread id" }],
  options: [
    {
      flags: "--otlp <url>",
      type: "string",
      description:
        "send it to this OTLP/HTTP collector: `/v1/traces` is added unless the URL ends with it",
    },
    {
      flags: "-o, --output <file>",
      type: "string",
      description:
        "write the OTLP request to this file (JSON, or protobuf with --protocol http/protobuf)",
    },
    { flags: "--force", type: "boolean", description: "replace an existing regular file" },
    {
      flags: "--protocol <protocol>",
      type: "enum",
      choices: ["http/json", "http/protobuf"],
      description:
        "the OTLP encoding (default: http/json for a file or stdout, http/protobuf for --otlp)",
    },
    {
      flags: "--timeout <duration>",
      type: "duration",
      bareUnit: "s",
      default: "10s",
      description: "give up sending after this long",
    },
  ],
  examples: [
    "uwf thread trace 01JD… --otlp http://localhost:4318",
    "uwf thread trace 01JD… -o trace.json",
    "uwf thread trace 01JD… | jq '.resourceSpans[0].scopeSpans[0].spans | length'",
  ],
  async run(ctx, [thread], options) {
    if (options.otlp !== undefined && options.output !== undefined) {
      throw new UwfError("USAGE", "--otlp and -o cannot be given together", {
        hint: "Send the trace with --otlp, or write it with -o; run twice for both.",
      });
    }
    const file = options.output === undefined ? null : resolve(ctx.cwd, options.output);
    // Checked before any work: an existing file without --force is refused at once.
    const write = file === null ? null : outputFile(file, { force: options.force === true });
    const [{ familyTrace }, { encodeTraces, postTraces, tracesUrl }, { otlpSettings }] =
      await Promise.all([
        import("@united-workforce/engine"),
        import("../../tracing/otlp.js"),
        import("../../tracing/otel-env.js"),
      ]);
    const settings = otlpSettings(ctx.env);
    const protocol =
      options.protocol ?? (options.otlp === undefined ? "http/json" : "http/protobuf");
    const store = await ctx.store();
    const { threads, spans } = await familyTrace(store, thread!);
    const body = await encodeTraces(spans, protocol, { serviceName: settings.serviceName });
    const doc: ThreadTraceDocument = {
      thread: thread!,
      traceId: spans[0]?.traceId ?? "",
      threads,
      spans: spans.length,
      file,
      endpoint: options.otlp === undefined ? null : tracesUrl(options.otlp),
      protocol,
      bytes: body.byteLength,
    };
    if (doc.endpoint !== null) {
      await postTraces(doc.endpoint, body, {
        protocol,
        headers: settings.headers,
        timeoutMs: options.timeout,
        signal: ctx.signal,
      });
    } else if (write !== null) {
      write(body);
    } else {
      ctx.output(`${Buffer.from(body).toString("utf8")}\n`);
      return { document: doc, text: () => "", printed: true };
    }
    return result(doc, (d) => {
      const what = `${d.spans} span${d.spans === 1 ? "" : "s"} of trace ${d.traceId}`;
      return d.endpoint === null ? `wrote ${d.file}: ${what}` : `sent ${what} to ${d.endpoint}`;
    });
  },
});
