import type { TraceSpan } from "@united-workforce/engine";
import { errorMessage, nodeHttp, UwfError } from "@united-workforce/util";
import { VERSION } from "../version.js";

/** The OTLP/HTTP encodings uwf sends: OTLP's JSON, or protobuf. */
export const OTLP_PROTOCOLS = ["http/json", "http/protobuf"] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** Where the spans are said to come from: the OTLP resource's `service.name`. */
export interface OtlpResource {
  serviceName: string;
}

/** The span kinds of the OpenTelemetry API (`SpanKind`): INTERNAL 0, CLIENT 2. */
const SPAN_KIND = { internal: 0, client: 2 } as const;
/** The API's `SpanStatusCode`: UNSET 0, ERROR 2. */
const STATUS_CODE = { unset: 0, error: 2 } as const;
/** W3C trace flags: sampled. */
const SAMPLED = 1;

/**
 * The spans as an OTLP ExportTraceServiceRequest, encoded by OpenTelemetry's own serializers
 * (`@opentelemetry/otlp-transformer`): the official JSON encoding (hex ids, camelCase) or
 * protobuf. The library is loaded here, on first use: a uwf that exports nothing never loads it.
 */
export async function encodeTraces(
  spans: readonly TraceSpan[],
  protocol: OtlpProtocol,
  resource: OtlpResource,
): Promise<Uint8Array> {
  const { JsonTraceSerializer, ProtobufTraceSerializer } = await import(
    "@opentelemetry/otlp-transformer"
  );
  const serializer = protocol === "http/json" ? JsonTraceSerializer : ProtobufTraceSerializer;
  type ReadableSpan = Parameters<typeof serializer.serializeRequest>[0][number];
  const otlpResource = {
    attributes: { "service.name": resource.serviceName, "service.version": VERSION },
  } as unknown as ReadableSpan["resource"];
  const scope = { name: "uwf", version: VERSION };
  const readable = spans.map(
    (span): ReadableSpan =>
      ({
        name: span.name,
        kind: SPAN_KIND[span.kind],
        spanContext: () => ({ traceId: span.traceId, spanId: span.spanId, traceFlags: SAMPLED }),
        parentSpanContext:
          span.parentSpanId === null
            ? undefined
            : { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: SAMPLED },
        startTime: hrTime(span.startMs),
        endTime: hrTime(span.endMs),
        duration: hrTime(span.endMs - span.startMs),
        status: {
          code: STATUS_CODE[span.status.code],
          ...(span.status.message === undefined ? {} : { message: span.status.message }),
        },
        attributes: span.attributes,
        links: [],
        events: [],
        ended: true,
        resource: otlpResource,
        instrumentationScope: scope,
        droppedAttributesCount: 0,
        droppedEventsCount: 0,
        droppedLinksCount: 0,
      }) as unknown as ReadableSpan,
  );
  const body = serializer.serializeRequest(readable);
  if (body === undefined) throw new Error("the OTLP serializer returned nothing");
  return protocol === "http/json" ? int64AsStrings(body) : body;
}

/**
 * OTLP's JSON is protobuf's JSON mapping, where an int64 is a decimal string; the serializer
 * writes integer attribute values as JSON numbers (which collectors also accept). Written as
 * strings, a value above 2^53 would survive any reader.
 */
function int64AsStrings(body: Uint8Array): Uint8Array {
  const request: unknown = JSON.parse(Buffer.from(body).toString("utf8"));
  const text = JSON.stringify(request, (key, value: unknown) =>
    key === "intValue" && typeof value === "number" ? String(value) : value,
  );
  return Buffer.from(text, "utf8");
}

/** Milliseconds as OpenTelemetry's HrTime: [seconds, nanoseconds]. */
function hrTime(ms: number): [number, number] {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/**
 * The traces endpoint of an OTLP/HTTP collector: a base URL gets `/v1/traces` added, as
 * `OTEL_EXPORTER_OTLP_ENDPOINT` does; one that already ends there is used as given.
 */
export function tracesUrl(base: string): string {
  const url = base.trim();
  if (/\/v1\/traces\/?$/.test(url)) return url;
  return `${url.replace(/\/+$/, "")}/v1/traces`;
}

export interface PostOptions {
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  /** At most this long; then the request is abandoned. */
  timeoutMs: number;
  /** Ends the request at once (SIGINT). */
  signal?: AbortSignal;
}

/**
 * POST an encoded request to an OTLP/HTTP traces endpoint; an `OTLP_EXPORT_FAILED` error says
 * why not. Over `node:http(s)`, not `fetch`: Node 20's fetch loads undici on first use, ≈ 100 ms
 * of CPU a command would pay for one request. No keep-alive: the command exits right after.
 */
export function postTraces(url: string, body: Uint8Array, options: PostOptions): Promise<void> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(exportFailed(url, "it is not a URL"));
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    return Promise.reject(exportFailed(url, "OTLP/HTTP needs an http: or https: URL"));
  }
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  return new Promise((resolve, reject) => {
    const fail = (error: unknown): void => {
      const why = timeout.aborted
        ? `no answer within ${options.timeoutMs / 1000} s`
        : options.signal?.aborted
          ? "interrupted"
          : errorMessage(error);
      reject(exportFailed(url, why));
    };
    const request = nodeHttp(target.protocol === "https:").request(
      target,
      {
        method: "POST",
        agent: false,
        signal,
        headers: {
          ...options.headers,
          "content-type":
            options.protocol === "http/json" ? "application/json" : "application/x-protobuf",
          "content-length": body.byteLength,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", fail);
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          // A collector's partial success (a 200 that rejected some spans) is not looked into.
          if (status >= 200 && status < 300) return resolve();
          const said = Buffer.concat(chunks).toString("utf8").trim().slice(0, 200);
          const line = `HTTP ${status} ${response.statusMessage ?? ""}`.trim();
          reject(exportFailed(url, said ? `${line}: ${said}` : line));
        });
      },
    );
    request.on("error", fail);
    request.end(body);
  });
}

function exportFailed(url: string, why: string): UwfError {
  return new UwfError("OTLP_EXPORT_FAILED", `sending the trace to ${url} failed: ${why}`, {
    hint: "Check that an OpenTelemetry collector listens there (OTLP over HTTP, usually port 4318), or write the trace to a file with -o.",
  });
}
