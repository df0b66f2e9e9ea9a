import { OTLP_PROTOCOLS, type OtlpProtocol, tracesUrl } from "./otlp.js";

/** How long an export may take when `OTEL_EXPORTER_OTLP_TIMEOUT` does not say (the spec's 10 s). */
export const DEFAULT_OTLP_TIMEOUT_MS = 10_000;

/** What the standard OTEL_* variables ask of an OTLP trace export. */
export interface OtlpSettings {
  /** The traces endpoint; null when no endpoint variable is set (live export is off). */
  url: string | null;
  /** The protocol asked for, as written: `grpc` (or a typo) is refused when an export is made. */
  protocol: string;
  headers: Record<string, string>;
  timeoutMs: number;
  serviceName: string;
}

/**
 * The OpenTelemetry exporter variables, read from the environment the CLI entry hands over:
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as given) or `OTEL_EXPORTER_OTLP_ENDPOINT` (a base:
 * `/v1/traces` is added), `…_PROTOCOL` (default http/protobuf, as the SDKs), `…_HEADERS`
 * (`key=value,…`, values URL-encoded), `…_TIMEOUT` (ms), each with its `TRACES_` form first,
 * `OTEL_SERVICE_NAME` (default `uwf`); `OTEL_SDK_DISABLED=true` turns export off.
 */
export function otlpSettings(env: Record<string, string | undefined>): OtlpSettings {
  const pick = (name: string): string | undefined =>
    nonBlank(env[`OTEL_EXPORTER_OTLP_TRACES_${name}`]) ??
    nonBlank(env[`OTEL_EXPORTER_OTLP_${name}`]);
  const traces = nonBlank(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonBlank(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true";
  const timeout = Number(pick("TIMEOUT"));
  return {
    url: disabled ? null : (traces ?? (base === undefined ? null : tracesUrl(base))),
    protocol: pick("PROTOCOL") ?? "http/protobuf",
    headers: {
      ...parseHeaders(nonBlank(env.OTEL_EXPORTER_OTLP_HEADERS)),
      ...parseHeaders(nonBlank(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS)),
    },
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_OTLP_TIMEOUT_MS,
    serviceName: nonBlank(env.OTEL_SERVICE_NAME) ?? "uwf",
  };
}

/** A protocol uwf can send, or null (`grpc`: uwf speaks OTLP over HTTP only). */
export function supportedProtocol(protocol: string): OtlpProtocol | null {
  return (OTLP_PROTOCOLS as readonly string[]).includes(protocol)
    ? (protocol as OtlpProtocol)
    : null;
}

/** The W3C-baggage-like list the spec gives `OTEL_EXPORTER_OTLP_HEADERS`: `k=v,k2=v2`. */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text?.split(",") ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // Kept as written.
    }
    if (key !== "") headers[key] = value;
  }
  return headers;
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}
