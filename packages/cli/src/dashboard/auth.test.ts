import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { checkRequest, checkWrite, type Guard } from "./auth.js";

const guard: Guard = { port: 4321, token: "secret-token", csrf: "csrf-token" };
const cookie = "uwf_dashboard_4321=secret-token";

function req(method: string, headers: Record<string, string>): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage;
}
const url = (path: string) => new URL(path, "http://127.0.0.1:4321");

describe("checkRequest", () => {
  it("lets a request with the cookie or the bearer token through", () => {
    expect(
      checkRequest(req("GET", { host: "127.0.0.1:4321", cookie }), url("/threads"), guard),
    ).toEqual({ kind: "ok" });
    expect(
      checkRequest(
        req("GET", { host: "localhost:4321", authorization: "Bearer secret-token" }),
        url("/"),
        guard,
      ),
    ).toEqual({ kind: "ok" });
  });

  it("trades a right token in the URL for the clean URL, keeping the other parameters", () => {
    expect(
      checkRequest(
        req("GET", { host: "127.0.0.1:4321" }),
        url("/threads?status=idle&token=secret-token"),
        guard,
      ),
    ).toEqual({ kind: "login", location: "/threads?status=idle" });
    expect(
      checkRequest(req("GET", { host: "127.0.0.1:4321" }), url("/?token=nope"), guard),
    ).toMatchObject({
      kind: "refuse",
      status: 401,
    });
  });

  it("refuses a foreign Host, a foreign Origin and a cross-site fetch even with the token", () => {
    const refused = (headers: Record<string, string>) =>
      checkRequest(req("GET", { cookie, ...headers }), url("/threads"), guard);
    expect(refused({ host: "attacker.example:4321" })).toMatchObject({ status: 403 });
    expect(refused({ host: "127.0.0.1:80" })).toMatchObject({ status: 403 });
    expect(refused({})).toMatchObject({ status: 403 });
    expect(refused({ host: "127.0.0.1:4321", origin: "https://attacker.example" })).toMatchObject({
      status: 403,
    });
    expect(refused({ host: "127.0.0.1:4321", "sec-fetch-site": "cross-site" })).toMatchObject({
      status: 403,
    });
  });

  it("does not take a cookie of another port's dashboard", () => {
    expect(
      checkRequest(
        req("GET", { host: "127.0.0.1:4321", cookie: "uwf_dashboard_9999=secret-token" }),
        url("/"),
        guard,
      ),
    ).toMatchObject({ kind: "refuse", status: 401 });
  });
});

describe("checkWrite", () => {
  const form = (text: string) => new URLSearchParams(text);
  it("needs a same-origin Origin and the CSRF token, from the form or the header", () => {
    const origin = "http://127.0.0.1:4321";
    expect(checkWrite(req("POST", { origin }), form("csrf=csrf-token"), guard)).toEqual({
      kind: "ok",
    });
    expect(
      checkWrite(req("POST", { origin, "x-uwf-csrf": "csrf-token" }), form(""), guard),
    ).toEqual({ kind: "ok" });
    expect(checkWrite(req("POST", {}), form("csrf=csrf-token"), guard)).toMatchObject({
      status: 403,
    });
    expect(
      checkWrite(req("POST", { origin: "null" }), form("csrf=csrf-token"), guard),
    ).toMatchObject({ status: 403 });
    expect(checkWrite(req("POST", { origin }), form("csrf=wrong"), guard)).toMatchObject({
      status: 403,
    });
    expect(checkWrite(req("POST", { origin }), form(""), guard)).toMatchObject({ status: 403 });
  });
});
