import { readFileSync } from "node:fs";
import { readJsonLines, type ToolCallRecord } from "@united-workforce/agent-kit";
import { describe, expect, it } from "vitest";
import { ClaudeStreamReader } from "./stream.js";

/** Streams recorded from the real claude 2.1.197 against the fake model. */
function read(fixture: string, extra = ""): { reader: ClaudeStreamReader; calls: string[] } {
  const text = readFileSync(new URL(`./__fixtures__/${fixture}`, import.meta.url), "utf8");
  const calls: string[] = [];
  const reader = new ClaudeStreamReader((call: ToolCallRecord) => calls.push(call.name));
  const { values, invalid } = readJsonLines(text + extra);
  for (const value of values) reader.event(value);
  for (const line of invalid) reader.invalid(line);
  return { reader, calls };
}

describe("ClaudeStreamReader", () => {
  it("turns a tool-using run into turns with their tool calls and results", () => {
    const { reader, calls } = read("tool-write.jsonl");
    const run = reader.finish();
    expect(calls).toEqual(["Write"]);
    expect(run.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.model).toBe("fake-model");
    expect(run.claudeVersion).toBe("2.1.197");
    // Two content blocks of one model message make one turn.
    expect(run.turns).toEqual([
      {
        text: "I'll write it.",
        toolCalls: [
          {
            name: "Write",
            input: { file_path: "hello.txt", content: "hi\n" },
            output: expect.stringContaining("File created successfully at: hello.txt"),
          },
        ],
        usage: null,
      },
      { text: "---\n$status: done\n---\nok", toolCalls: [], usage: null },
    ]);
    expect(run.result).toEqual({
      isError: false,
      text: "---\n$status: done\n---\nok",
      subtype: "success",
      apiErrorStatus: null,
      stopReason: "end_turn",
    });
    expect(run.usage).toEqual({
      inputTokens: 20,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0.00035,
      turns: 2,
    });
    expect(run.denials).toEqual([]);
  });

  it("reports permission denials and the tool error the model saw", () => {
    const run = read("permission-denied.jsonl").reader.finish();
    expect(run.denials).toEqual([
      {
        tool: "Write",
        input: { file_path: expect.stringMatching(/hello\.txt$/), content: "hi\n" },
      },
    ]);
    const call = run.turns[0]!.toolCalls[0]!;
    expect(call.isError).toBe(true);
    expect(call.output).toMatch(/requested permissions to write/);
  });

  it("reads an API error as an error result, not as a model turn", () => {
    const run = read("api-error-400.jsonl").reader.finish();
    expect(run.turns).toEqual([]);
    expect(run.result).toMatchObject({
      isError: true,
      apiErrorStatus: 400,
      text: "API Error: 400 scripted boom",
    });
    // Zeros the CLI reports for a failed call are what it said, not unknowns.
    expect(run.usage).toMatchObject({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
  });

  it("has no result when the stream ends early, and counts lines that are not JSON", () => {
    const text = readFileSync(new URL("./__fixtures__/tool-write.jsonl", import.meta.url), "utf8");
    const cut = text.split("\n").slice(0, 3).join("\n");
    const reader = new ClaudeStreamReader();
    const { values, invalid } = readJsonLines(`${cut}\nSegmentation fault\n`);
    for (const value of values) reader.event(value);
    for (const line of invalid) reader.invalid(line);
    const run = reader.finish();
    expect(run.result).toBeNull();
    expect(run.usage).toEqual({});
    expect(run.invalidLines).toBe(1);
    expect(run.turns).toHaveLength(1);
  });
});
