import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import {
  accessOf,
  checkRequest,
  checkWrite,
  type Guard,
  publicName,
  servedAddress,
} from "./auth.js";

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

describe("served beyond this machine", () => {
  const served: Guard = {
    ...guard,
    also: [servedAddress("192.168.1.5", 4321)!, publicName("https://uwf.example.com/")],
  };

  it("answers to --host's address and the public URL's name, and to no other", () => {
    const check = (host: string, path = "/threads") =>
      checkRequest(req("GET", { host, cookie }), url(path), served);
    expect(check("192.168.1.5:4321")).toEqual({ kind: "ok" });
    expect(check("uwf.example.com")).toEqual({ kind: "ok" });
    expect(check("UWF.example.com")).toEqual({ kind: "ok" });
    expect(check("attacker.example")).toMatchObject({ status: 403 });
    expect(check("uwf.example.com:8080")).toMatchObject({ status: 403 });
    expect(servedAddress("0.0.0.0", 4321)).toBeNull();
    expect(servedAddress("::1", 4321)).toEqual({ host: "[::1]:4321", origin: "http://[::1]:4321" });
  });

  it("still needs the token for every page but a link, the hook and the stylesheet", () => {
    const bare = (method: string, path: string, host = "uwf.example.com") =>
      checkRequest(req(method, { host, "sec-fetch-site": "cross-site" }), url(path), served);
    for (const path of ["/threads", "/api/threads", "/events", "/assets/app.js", "/answer"]) {
      expect(bare("GET", path)).toMatchObject({ kind: "refuse" });
    }
    expect(bare("GET", "/answer/1.abc.def")).toEqual({ kind: "ok" });
    expect(bare("POST", "/answer/1.abc.def")).toEqual({ kind: "ok" });
    expect(bare("GET", "/assets/style.css")).toEqual({ kind: "ok" });
    // The hook is proved by its signature; GitHub names whatever host it posted to.
    expect(bare("POST", "/hooks/github", "203.0.113.9:4321")).toEqual({ kind: "ok" });
    // A link still needs a name of this server: a rebound name opens nothing.
    expect(bare("GET", "/answer/1.abc.def", "attacker.example")).toMatchObject({ status: 403 });
    expect(accessOf("GET", "/hooks/github")).toBe("hook");
  });

  it("takes a write from the public origin with the page's own CSRF token", () => {
    const origin = "https://uwf.example.com";
    expect(
      checkWrite(req("POST", { origin }), new URLSearchParams("csrf=link"), served, "link"),
    ).toEqual({ kind: "ok" });
    expect(
      checkWrite(req("POST", { origin }), new URLSearchParams("csrf=csrf-token"), served, "link"),
    ).toMatchObject({ status: 403 });
  });
});
