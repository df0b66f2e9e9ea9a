import { createServer, type IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

/**
 * The OTLP protocol's own message definitions: the code protobuf.js generated from the
 * opentelemetry-proto `.proto` files, as `@opentelemetry/otlp-transformer` 0.52 shipped it
 * (installed here as `otlp-proto-root`). Protobuf requests are decoded with it, never with
 * the encoder under test.
 */
interface ProtoMessage {
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): unknown;
}
const protoRoot = createRequire(import.meta.url)("otlp-proto-root/build/src/generated/root.js") as {
  opentelemetry: {
    proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoMessage } } } };
  };
};
const ExportTraceServiceRequest =
  protoRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export type ReceivedValue = string | number | boolean | null;

/** One span as a collector received it, ids in hex whatever the encoding. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Null for a root span (OTLP sends none, or an empty one). */
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind: 1 internal, 3 client. */
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, ReceivedValue>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  /** The resource's attributes (service.name, …). */
  resource: Record<string, ReceivedValue>;
  scope: string;
}

/** One POST the receiver took. */
export interface ReceivedRequest {
  path: string;
  protocol: "http/json" | "http/protobuf";
  headers: IncomingMessage["headers"];
  spans: ReceivedSpan[];
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the base an OTEL_EXPORTER_OTLP_ENDPOINT names. */
  url: string;
  requests: ReceivedRequest[];
  /** Every span received so far, in order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

/**
 * A local OTLP/HTTP trace collector on 127.0.0.1: it takes `POST /v1/traces` in http/json
 * (OTLP's JSON encoding) and http/protobuf (decoded with the official definitions), keeps what
 * it decoded, and answers as a collector does. `status` makes it refuse every request.
 */
export async function startOtlpReceiver(options: { status?: number } = {}): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const json = (request.headers["content-type"] ?? "").startsWith("application/json");
      if (options.status !== undefined) {
        response.writeHead(options.status, { "content-type": "text/plain" });
        response.end("refused by the test receiver");
        return;
      }
      try {
        const decoded = json
          ? JSON.parse(body.toString("utf8"))
          : ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
              longs: String,
              bytes: Buffer,
              defaults: false,
            });
        requests.push({
          path: request.url ?? "",
          protocol: json ? "http/json" : "http/protobuf",
          headers: request.headers,
          spans: spansOf(decoded),
        });
      } catch (error) {
        response.writeHead(400, { "content-type": "text/plain" });
        response.end(`cannot decode: ${(error as Error).message}`);
        return;
      }
      if (json) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end("{}");
      } else {
        // An empty ExportTraceServiceResponse: full success.
        response.writeHead(200, { "content-type": "application/x-protobuf" });
        response.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((r) => r.spans),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Json = Record<string, unknown>;

/** The spans of an ExportTraceServiceRequest, decoded from either encoding. */
function spansOf(request: unknown): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of list((request as Json).resourceSpans)) {
    const resource = attributesOf((resourceSpans.resource as Json | undefined)?.attributes);
    for (const scopeSpans of list(resourceSpans.scopeSpans)) {
      const scope = String((scopeSpans.scope as Json | undefined)?.name ?? "");
      for (const span of list(scopeSpans.spans)) {
        const parent = hex(span.parentSpanId);
        const status = (span.status ?? {}) as Json;
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: parent === "" ? null : parent,
          name: String(span.name),
          kind: kindNumber(span.kind),
          startTimeUnixNano: String(span.startTimeUnixNano),
          endTimeUnixNano: String(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          status: { code: statusNumber(status.code), message: String(status.message ?? "") },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

/** An id: hex in JSON, bytes in protobuf. */
function hex(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return Buffer.from(value as Uint8Array).toString("hex");
}

function kindNumber(kind: unknown): number {
  return typeof kind === "number" ? kind : Number(kind ?? 0);
}

function statusNumber(code: unknown): number {
  return typeof code === "number" ? code : Number(code ?? 0);
}

/** OTLP's KeyValue list as a plain object; int64 values (strings in either encoding) as numbers. */
function attributesOf(attributes: unknown): Record<string, ReceivedValue> {
  const out: Record<string, ReceivedValue> = {};
  for (const { key, value } of list(attributes) as { key: string; value: Json }[]) {
    if ("stringValue" in value) out[key] = String(value.stringValue);
    else if ("intValue" in value) out[key] = Number(value.intValue);
    else if ("doubleValue" in value) out[key] = Number(value.doubleValue);
    else if ("boolValue" in value) out[key] = Boolean(value.boolValue);
    else out[key] = null;
  }
  return out;
}
