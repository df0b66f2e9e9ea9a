import { describe, expect, it } from "vitest";
import { otlpSettings, supportedProtocol } from "./otel-env.js";
import { tracesUrl } from "./otlp.js";

describe("otlpSettings", () => {
  it("is off without an endpoint, and fills the spec's defaults", () => {
    expect(otlpSettings({})).toEqual({
      url: null,
      protocol: "http/protobuf",
      headers: {},
      timeoutMs: 10_000,
      serviceName: "uwf",
    });
  });

  it("adds /v1/traces to the base endpoint, and takes the traces endpoint as given", () => {
    expect(otlpSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }).url).toBe(
      "http://c:4318/v1/traces",
    );
    expect(
      otlpSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:9/custom",
      }).url,
    ).toBe("http://t:9/custom");
    expect(
      otlpSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).url,
    ).toBeNull();
  });

  it("reads protocol, headers, timeout and service name, the TRACES_ forms first", () => {
    const settings = otlpSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "a=1, authorization=Bearer%20x,broken",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "a=2",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2500",
      OTEL_SERVICE_NAME: "ci",
    });
    expect(settings).toMatchObject({
      protocol: "http/json",
      headers: { a: "2", authorization: "Bearer x" },
      timeoutMs: 2500,
      serviceName: "ci",
    });
    expect(otlpSettings({ OTEL_EXPORTER_OTLP_TIMEOUT: "soon" }).timeoutMs).toBe(10_000);
  });

  it("knows the protocols uwf speaks", () => {
    expect(supportedProtocol("http/json")).toBe("http/json");
    expect(supportedProtocol("grpc")).toBeNull();
  });
});

describe("tracesUrl", () => {
  it("keeps a URL that names the traces path", () => {
    expect(tracesUrl("http://c:4318/v1/traces")).toBe("http://c:4318/v1/traces");
    expect(tracesUrl("https://otel.example/otlp")).toBe("https://otel.example/otlp/v1/traces");
  });
});
