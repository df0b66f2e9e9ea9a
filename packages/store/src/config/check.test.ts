import { describe, expect, it } from "vitest";
import { checkConfig } from "./check.js";

describe("checkConfig messages", () => {
  it("never quote a secret: a URL's password, a numeric key, a key pasted as apiKeyEnv", () => {
    expect(
      checkConfig({
        providers: {
          p: { baseUrl: "ftp://user:hunter2pass@host" },
          q: { baseUrl: "http://x", apiKeyEnv: "sk-proj-0123456789abcdefghij" },
        },
      }).errors,
    ).toEqual([
      'providers.p.baseUrl must be an http:// or https:// URL, got "ftp://user:****@host"',
      'providers.q.apiKeyEnv must be an environment variable name (letters, digits, _), got "sk-…ghij"',
    ]);
    expect(
      checkConfig({
        providers: { q: { baseUrl: "http://x", apiKey: 1.2345678901234569e23 } },
        agents: { a: { command: "x", env: { TOKEN: 12345678, PORT: 80 } } },
      }).errors,
    ).toEqual([
      "providers.q.apiKey must be a string, got a number",
      "agents.a.env.TOKEN must be a string, got a number",
      "agents.a.env.PORT must be a string, got 80",
    ]);
  });
});

describe("store", () => {
  it("takes fs and postgres URLs, and refuses a scheme no backend opens", () => {
    for (const store of ["fs", "postgres://db/uwf", "postgresql://u@db/uwf"]) {
      expect(checkConfig({ store }).errors, store).toEqual([]);
    }
    expect(checkConfig({ store: "mysql://u:hunter2@x/db" }).errors).toEqual([
      'store must be fs or a postgres:// URL, got "mysql://u:****@x/db"',
    ]);
  });
});

describe("notify", () => {
  it("takes a command or a webhook per entry, and says what is wrong with the rest", () => {
    const notify = [
      { on: ["waiting"], command: ["notify-send", "uwf"] },
      { on: ["completed"], webhook: "https://hooks.example/abc", timeoutSeconds: 5 },
      { on: ["failed"] },
      { on: ["failed"], command: ["x"], webhook: "https://x" },
      { on: ["budget"], command: [] },
      { on: ["budget"], webhook: "ftp://user:hunter2pass@host" },
    ];
    expect(checkConfig({ notify }).errors).toEqual([
      "notify[2] must have either command or webhook (one of them)",
      "notify[3] must have either command or webhook (one of them)",
      "notify[4].command must name a command",
      'notify[5].webhook must be an http:// or https:// URL, got "ftp://user:****@host"',
    ]);
    expect(checkConfig({ notify: [{ on: ["sometimes"], command: ["x"] }] }).errors).toEqual([
      expect.stringContaining("notify[0].on[0]"),
    ]);
  });

  it("needs an origin for dashboard.publicUrl and one secret for webhooks.github", () => {
    expect(
      checkConfig({
        dashboard: { publicUrl: "https://uwf.example.com", linkHours: 2 },
        webhooks: { github: { secretEnv: "GITHUB_WEBHOOK_SECRET" } },
      }).errors,
    ).toEqual([]);
    expect(
      checkConfig({
        dashboard: { publicUrl: "https://uwf.example.com/uwf" },
        webhooks: { github: { secret: "s3cret", secretEnv: "X" } },
      }).errors,
    ).toEqual([
      'dashboard.publicUrl must be an http:// or https:// origin with no path, got "https://uwf.example.com/uwf"',
      "webhooks.github must have either secret or secretEnv (one of them)",
    ]);
    expect(checkConfig({ webhooks: { github: { secretEnv: "not a name" } } }).errors).toEqual([
      expect.stringContaining("webhooks.github.secretEnv must be an environment variable name"),
    ]);
    expect(checkConfig({ webhooks: { github: {} } }).errors).toEqual([
      "webhooks.github must have either secret or secretEnv (one of them)",
    ]);
  });
});
