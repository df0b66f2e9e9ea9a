#!/usr/bin/env node
// A tiny OTLP/HTTP collector for trying uwf's traces without installing one: it takes
// `POST /v1/traces` in OTLP's JSON encoding and prints each trace as a tree of spans.
//
//   node examples/tracing/print-spans.mjs [port]          # default 4318, on 127.0.0.1
//   uwf thread trace <thread> --otlp http://127.0.0.1:4318 --protocol http/json
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_EXPORTER_OTLP_PROTOCOL=http/json \
//     uwf thread exec <thread>
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 4318);

const value = (v) => v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue;
const SHOWN = [
  "uwf.step.status",
  "gen_ai.request.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "uwf.usage.cost_usd",
];

function print(request) {
  const spans = request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const children = new Map();
  for (const span of spans) {
    const parent = span.parentSpanId || null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const ids = new Set(spans.map((s) => s.spanId));
  // Roots: spans whose parent is not in this request (a live export sends steps alone).
  const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  const line = (span, depth) => {
    const ms = Number((BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1000000n);
    const attributes = Object.fromEntries(span.attributes.map((a) => [a.key, value(a.value)]));
    const facts = SHOWN.filter((k) => attributes[k] !== undefined).map(
      (k) => `${k.split(".").at(-1)}=${attributes[k]}`,
    );
    const error = span.status?.code === 2 ? `  ERROR ${span.status.message ?? ""}` : "";
    console.log(`${"  ".repeat(depth)}${span.name}  ${ms} ms  ${facts.join(" ")}${error}`);
    for (const child of children.get(span.spanId) ?? []) line(child, depth + 1);
  };
  console.log(`trace ${spans[0]?.traceId ?? "(empty)"}: ${spans.length} spans`);
  for (const root of roots) line(root, 1);
}

createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
      res.writeHead(415).end("this collector reads http/json only: --protocol http/json\n");
      return;
    }
    print(JSON.parse(body));
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
}).listen(port, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${port}/v1/traces`));
