import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TempHome, tempHome } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexHome, findRollout, rolloutFailureStatus, rolloutTotals } from "./rollout.js";

let temp: TempHome;
beforeEach(() => {
  temp = tempHome();
});
afterEach(() => temp.cleanup());

const ID = "01a20a82-6157-7ee1-9ca6-983794ca78a7";

function tokenCount(input: number, output: number): string {
  return JSON.stringify({
    type: "event_msg",
    payload: {
      type: "token_count",
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: 4,
          cache_write_input_tokens: 0,
          output_tokens: output,
        },
        last_token_usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
  });
}

describe("the codex rollout", () => {
  it("is found by thread id under sessions/YYYY/MM/DD, and gives the latest totals", () => {
    const dir = join(temp.home, "sessions", "2026", "11", "23");
    mkdirSync(dir, { recursive: true });
    mkdirSync(join(temp.home, "sessions", "2026", "11", "24"), { recursive: true });
    const file = join(dir, `rollout-2026-11-23T22-22-38-${ID}.jsonl`);
    writeFileSync(
      file,
      [
        '{"type":"session_meta","payload":{}}',
        tokenCount(10, 5),
        tokenCount(30, 15),
        '{"type":"event_msg","payload":{"type":"token_count","info":null}}',
        "not json",
        "",
      ].join("\n"),
    );
    expect(findRollout(temp.home, ID)).toBe(file);
    expect(rolloutTotals(file)).toEqual({
      input_tokens: 30,
      cached_input_tokens: 4,
      cache_write_input_tokens: 0,
      output_tokens: 15,
    });
  });

  it("is missing for an unknown thread or CODEX_HOME, and gives no totals when it records none", () => {
    expect(findRollout(temp.home, ID)).toBeNull();
    expect(findRollout(join(temp.home, "absent"), ID)).toBeNull();
    const file = join(temp.home, "empty.jsonl");
    writeFileSync(file, '{"type":"session_meta"}\n');
    expect(rolloutTotals(file)).toBeNull();
    expect(rolloutTotals(join(temp.home, "absent.jsonl"))).toBeNull();
  });

  it("lives in CODEX_HOME, else ~/.codex", () => {
    expect(codexHome({ CODEX_HOME: "/c", HOME: "/h" })).toBe("/c");
    expect(codexHome({ HOME: "/h" })).toBe("/h/.codex");
    expect(codexHome({})).toBeNull();
  });
});

describe("the failure status in a rollout", () => {
  const failed = (info: unknown): string =>
    JSON.stringify({
      type: "event_msg",
      payload: { type: "task_complete", error: { message: "m", codex_error_info: info } },
    });

  it("names the HTTP status codex recorded, 500 included though codex's message hides it", () => {
    const file = join(temp.home, "r.jsonl");
    writeFileSync(file, `${failed({ http_connection_failed: { http_status_code: 503 } })}\n`);
    expect(rolloutFailureStatus(file)).toBe("HTTP 503");
    writeFileSync(file, `${failed("internal_server_error")}\n`);
    expect(rolloutFailureStatus(file)).toBe("HTTP 500 Internal Server Error");
  });

  it("is null when codex recorded no status", () => {
    const file = join(temp.home, "r.jsonl");
    writeFileSync(file, `${failed("context_window_exceeded")}\n`);
    expect(rolloutFailureStatus(file)).toBeNull();
    expect(rolloutFailureStatus(join(temp.home, "absent.jsonl"))).toBeNull();
  });
});
