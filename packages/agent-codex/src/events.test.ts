import { readFileSync } from "node:fs";
import { readJsonLines } from "@united-workforce/agent-kit";
import { describe, expect, it } from "vitest";
import { CodexEventReader, errorText, MAX_TOOL_OUTPUT_CHARS } from "./events.js";

/**
 * The fixtures are real `codex exec --json` output of the pinned codex 0.169.0 against the
 * fake model (the workspace path replaced by /work/repo): see __fixtures__/README.md.
 */
function read(fixture: string): { reader: CodexEventReader; progress: string[] } {
  const text = readFileSync(new URL(`./__fixtures__/${fixture}.jsonl`, import.meta.url), "utf8");
  const progress: string[] = [];
  const reader = new CodexEventReader("/work/repo", (line) => progress.push(line));
  const { values, invalid } = readJsonLines(text);
  expect(invalid).toEqual([]);
  for (const event of values) reader.take(event);
  return { reader, progress };
}

describe("CodexEventReader on recorded codex streams", () => {
  it("turns a run with a patch and a failing command into turns, the answer and totals", () => {
    const { reader, progress } = read("tool-run");
    const report = reader.report();
    expect(report.threadId).toBe("01a20a82-6157-7ee1-9ca6-983794ca78a7");
    expect(report.finalMessage).toBe("---\n$status: done\n---\nwrote it");
    expect(report.turns).toEqual([
      {
        text: "I will write it.",
        toolCalls: [
          {
            name: "file_change",
            input: { changes: [{ path: "hello.txt", kind: "add" }] },
            output: "completed",
            isError: false,
          },
          {
            name: "command",
            input: { command: "/bin/bash -lc 'cat hello.txt && false'" },
            output: "hello from codex\n",
            isError: true,
          },
        ],
        usage: null,
      },
      { text: "---\n$status: done\n---\nwrote it", toolCalls: [], usage: null },
    ]);
    expect(report.totals).toEqual({
      input_tokens: 30,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: 15,
    });
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(progress).toEqual([
      "changed: add hello.txt",
      "running: /bin/bash -lc 'cat hello.txt && false'",
    ]);
  });

  it("reads a resumed run: the same thread, and totals that include the earlier run", () => {
    const report = read("tool-run-resumed").reader.report();
    expect(report.threadId).toBe("01a20a82-6157-7ee1-9ca6-983794ca78a7");
    expect(report.totals?.input_tokens).toBe(40);
    expect(report.turns).toHaveLength(1);
  });

  it("takes the model-metadata error item as a warning, not a failure", () => {
    const { reader, progress } = read("metadata-warning");
    const report = reader.report();
    expect(report.failures).toEqual([]);
    expect(report.warnings).toEqual([
      expect.stringContaining("Model metadata for `gpt-fake` not found"),
    ]);
    expect(progress).toEqual([expect.stringMatching(/^codex warning: Model metadata/)]);
    expect(report.finalMessage).toBe("---\n$status: done\n---\nok");
  });

  it("reports an HTTP 400 once, with the API's own message", () => {
    const report = read("http-400").reader.report();
    expect(report.failures).toEqual(["bad request from fake"]);
    expect(report.finalMessage).toBeNull();
    expect(report.totals).toBeNull();
  });

  it("reports an HTTP 500 with codex's message", () => {
    const report = read("http-500").reader.report();
    expect(report.failures).toEqual([expect.stringContaining("high demand")]);
  });
});

describe("CodexEventReader on other item types", () => {
  const reader = (): CodexEventReader => new CodexEventReader("/w");

  it("starts a new turn at reasoning and at a message after tool results", () => {
    const r = reader();
    r.take({ type: "item.completed", item: { type: "reasoning", text: "think" } });
    r.take({ type: "item.completed", item: { type: "agent_message", text: "plan" } });
    r.take({
      type: "item.completed",
      item: { type: "web_search", id: "i1", query: "codex", status: "completed" },
    });
    r.take({ type: "item.completed", item: { type: "agent_message", text: "done" } });
    expect(r.report().turns).toEqual([
      {
        text: "Reasoning: think\n\nplan",
        toolCalls: [{ name: "web_search", input: { query: "codex" }, isError: false }],
        usage: null,
      },
      { text: "done", toolCalls: [], usage: null },
    ]);
  });

  it("names MCP calls by server and tool, with their result or error", () => {
    const r = reader();
    r.take({
      type: "item.completed",
      item: {
        type: "mcp_tool_call",
        server: "docs",
        tool: "search",
        arguments: { q: "x" },
        result: { content: [] },
        status: "completed",
      },
    });
    r.take({
      type: "item.completed",
      item: {
        type: "mcp_tool_call",
        server: "docs",
        tool: "open",
        arguments: {},
        error: { message: "nope" },
        status: "failed",
      },
    });
    expect(r.report().turns[0]?.toolCalls).toEqual([
      { name: "mcp:docs/search", input: { q: "x" }, output: '{"content":[]}', isError: false },
      { name: "mcp:docs/open", input: {}, output: '{"message":"nope"}', isError: true },
    ]);
  });

  it("cuts a long command output and says how much was left out", () => {
    const r = reader();
    r.take({
      type: "item.completed",
      item: {
        type: "command_execution",
        command: "cat big",
        aggregated_output: "x".repeat(MAX_TOOL_OUTPUT_CHARS + 10),
        exit_code: 0,
        status: "completed",
      },
    });
    const output = r.report().turns[0]?.toolCalls[0]?.output ?? "";
    expect(output.endsWith("\n… (10 more characters)")).toBe(true);
  });

  it("keeps a path outside the step's directory absolute", () => {
    const r = reader();
    r.take({
      type: "item.completed",
      item: {
        type: "file_change",
        changes: [
          { path: "/w/a.txt", kind: "update" },
          { path: "/etc/x", kind: "add" },
        ],
        status: "failed",
      },
    });
    expect(r.report().turns[0]?.toolCalls[0]).toEqual({
      name: "file_change",
      input: {
        changes: [
          { path: "a.txt", kind: "update" },
          { path: "/etc/x", kind: "add" },
        ],
      },
      output: "failed",
      isError: true,
    });
  });

  it("keeps lines that are not JSON", () => {
    const r = reader();
    r.takeInvalid("panic: something");
    expect(r.report().invalidLines).toEqual(["panic: something"]);
  });
});

describe("errorText", () => {
  it("unwraps an API error body and leaves plain text alone", () => {
    expect(errorText('{"error":{"message":"quota exceeded","type":"x"}}')).toBe("quota exceeded");
    expect(errorText("stream disconnected")).toBe("stream disconnected");
    expect(errorText("")).toBe("codex reported an error");
    expect(errorText(undefined)).toBe("codex reported an error");
  });
});
