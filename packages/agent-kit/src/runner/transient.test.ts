import { ADAPTER_TRANSIENT_EXIT, ExitCode } from "@united-workforce/protocol";
import { seedThread, tempHome } from "@united-workforce/test-utils";
import { isUwfError } from "@united-workforce/util";
import { describe, expect, it } from "vitest";
import { planDevReview } from "../__fixtures__/workflows.js";
import { ModelRequestError } from "../openai/errors.js";
import { createAgent } from "./agent-main.js";
import {
  agentFailure,
  classifyFailure,
  TransientAgentError,
  transientExitFor,
  waitInText,
} from "./transient.js";

// 2026-01-01 10:00:00 local time: the clock-time cases count from it.
const NOW = new Date(2026, 0, 1, 10, 0, 0, 0).getTime();

describe("classifyFailure", () => {
  it.each([
    [{ status: 429 }, "HTTP 429"],
    [{ status: 500 }, "HTTP 500"],
    [{ status: 503 }, "HTTP 503"],
    [{ status: 529 }, "HTTP 529"],
    [{ network: true }, "connection failed"],
    // The real claude CLI's result texts.
    [{ text: "API Error: Request rejected (429) · Rate limited by fake" }, "HTTP 429"],
    [{ text: "API Error: 529 Overloaded. This is a server-side issue" }, "HTTP 529"],
    [{ text: "API Error: Unable to connect to API (ConnectionRefused)" }, "connection failed"],
    // The real codex CLI's error events.
    [{ text: "exceeded retry limit, last status: 429 Too Many Requests" }, "HTTP 429"],
    [
      { text: "We’re currently experiencing high demand, which may cause temporary errors." },
      "overloaded",
    ],
    [{ text: "You’ve hit your usage limit. Try again at 6:05 AM." }, "usage limit"],
    [{ text: "Claude AI usage limit reached|1767225600" }, "usage limit"],
    [{ text: "read ECONNRESET" }, "connection failed"],
    [{ text: "[429 Too Many Requests] RESOURCE_EXHAUSTED" }, "rate limit"],
  ])("%j is transient (%s)", (evidence, reason) => {
    expect(classifyFailure(evidence, NOW)?.reason).toBe(reason);
  });

  it.each([
    [{ status: 400, text: "invalid model" }],
    [{ status: 401, text: "rate limit mentioned in a refusal of the key" }],
    [{ status: 404 }],
    [{ text: "claude exited 1 without a result" }],
    [{ text: "the output is invalid: missing $status" }],
    // Money, not time, lifts these.
    [
      {
        status: 429,
        text: "You exceeded your current quota, please check your plan and billing details",
      },
    ],
    [{ text: "insufficient_quota" }],
    // A host name that does not resolve, or bad TLS: a misconfiguration, not a passing fault.
    [{ network: true, text: "cannot reach model: getaddrinfo ENOTFOUND api.example.invalid" }],
    [{ network: true, text: "fetch failed: self-signed certificate in certificate chain" }],
    // A number that merely looks like a status is not one.
    [{ text: "wrote 500 lines to notes.txt, then failed" }],
  ])("%j is an ordinary failure", (evidence) => {
    expect(classifyFailure(evidence, NOW)).toBeNull();
  });

  it("takes the API's Retry-After over any wait in the text", () => {
    expect(
      classifyFailure({ status: 429, retryAfterMs: 42_000, text: "try again in 5 minutes" }, NOW),
    ).toEqual({ reason: "HTTP 429", retryAfterMs: 42_000 });
  });

  it("reads the wait from the text when the API gave none", () => {
    expect(classifyFailure({ text: "rate limited; try again in 5 minutes" }, NOW)).toEqual({
      reason: "rate limit",
      retryAfterMs: 300_000,
    });
    expect(classifyFailure({ status: 503 }, NOW)).toEqual({
      reason: "HTTP 503",
      retryAfterMs: null,
    });
  });
});

describe("waitInText", () => {
  it.each([
    ["retry-after: 30", 30_000],
    ["Retry-After 2.5", 2_500],
    ["please try again in 20 seconds", 20_000],
    ["Try again in 2 hours 5 minutes.", 7_500_000],
    ["usage limit resets in 3 days", 259_200_000],
    ["try again at 11:30 AM", 5_400_000],
    ["your limit resets 3pm", 18_000_000],
    // Earlier than now: tomorrow.
    ["try again at 9:00 AM", 23 * 3_600_000],
    ["try again at 12:15 PM", 8_100_000],
    // Gemini's quota errors.
    ["Quota exceeded for metric. Please retry in 30.5s.", 30_500],
    ["retry in 250ms", 250],
    ["rate limited: retry after 5 minutes", 300_000],
    // An ISO time, with its own zone.
    [`limit resets at ${new Date(NOW + 90_000).toISOString()}`, 90_000],
  ])("%s waits %d ms", (text, ms) => {
    expect(waitInText(text, NOW)).toBe(ms);
  });

  it("reads a reset epoch in seconds", () => {
    const epoch = Math.floor(NOW / 1000) + 600;
    expect(waitInText(`Claude AI usage limit reached|${epoch}`, NOW)).toBe(600_000);
  });

  it("finds no wait in a message without one", () => {
    expect(waitInText("rate limited", NOW)).toBeNull();
    expect(waitInText("try again later", NOW)).toBeNull();
    expect(waitInText("resets soon", NOW)).toBeNull();
  });
});

describe("agentFailure and the runner", () => {
  it("is exit 75 with a retry-after line for a transient failure, AGENT_FAILED otherwise", () => {
    const transient = agentFailure("claude exited 1 (HTTP 429)", { status: 429 }, "hint");
    expect(transient).toBeInstanceOf(TransientAgentError);
    expect((transient as TransientAgentError).exitCode).toBe(ADAPTER_TRANSIENT_EXIT);
    const waiting = agentFailure("x", { status: 429, retryAfterMs: 1_500 }, "hint");
    expect(waiting.message).toMatch(/\nretry-after: 2$/);
    const ordinary = agentFailure("claude exited 1 (HTTP 400)", { status: 400 }, "check the key");
    expect(isUwfError(ordinary) && ordinary.code).toBe("AGENT_FAILED");
    expect(ordinary.message).not.toMatch(/retry-after/);
  });

  it("maps the OpenAI client's final 429 with its Retry-After, not its 400", () => {
    const limited = new ModelRequestError("http", 'model "m" answered HTTP 429: slow down', {
      status: 429,
      attempts: 1,
      hint: "wait",
      retryAfterMs: 7_000,
    });
    expect(transientExitFor(limited)?.retryAfterMs).toBe(7_000);
    const refused = new ModelRequestError("network", "cannot reach model", {
      attempts: 1,
      hint: "check",
    });
    expect(transientExitFor(refused)?.exitCode).toBe(ADAPTER_TRANSIENT_EXIT);
    const bad = new ModelRequestError("http", "HTTP 400", { status: 400, attempts: 1, hint: "h" });
    expect(transientExitFor(bad)).toBeNull();
    const timeout = new ModelRequestError("timeout", "no answer", { attempts: 1, hint: "h" });
    expect(transientExitFor(timeout)).toBeNull();
  });

  it("an adapter whose model is rate limited exits 75 and prints the wait on its own line", async () => {
    const temp = tempHome();
    try {
      const seeded = await seedThread(temp.home, {
        workflow: planDevReview,
        prompt: "Fix the login bug",
        cwd: temp.home,
      });
      const run = async (error: Error): Promise<{ code: number; stderr: string }> => {
        let stderr = "";
        const main = createAgent({
          name: "uwf-test",
          run: async () => {
            throw error;
          },
        });
        const argv = ["--thread", seeded.thread, "--role", "planner", "--prompt", "Plan."];
        const code = await main(argv, {
          stdout: () => {},
          stderr: (text) => {
            stderr += text;
          },
          env: { UWF_HOME: temp.home },
          cwd: temp.home,
        });
        return { code, stderr };
      };
      const limited = await run(
        new ModelRequestError("http", 'model "m" answered HTTP 429: slow down', {
          status: 429,
          attempts: 1,
          hint: "wait",
          retryAfterMs: 30_000,
        }),
      );
      expect(limited.code).toBe(ADAPTER_TRANSIENT_EXIT);
      expect(limited.stderr).toMatch(/^uwf-test: model "m" answered HTTP 429: slow down/m);
      // The line uwf reads, on its own and without the adapter's prefix.
      expect(limited.stderr).toMatch(/^retry-after: 30$/m);
      const refused = await run(
        new ModelRequestError("http", 'model "m" answered HTTP 401: bad key', {
          status: 401,
          attempts: 1,
          hint: "check the key",
        }),
      );
      expect(refused.code).toBe(ExitCode.agentFailed);
      expect(refused.stderr).not.toMatch(/retry-after/);
    } finally {
      temp.cleanup();
    }
  });
});
