import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sanitizeTerminalText, shellQuote } from "./terminal-text.js";

describe("sanitizeTerminalText", () => {
  it("removes colours, cursor moves, screen clears and title or hyperlink sequences", () => {
    expect(sanitizeTerminalText("\u001b[31mred\u001b[0m ok")).toBe("red ok");
    expect(sanitizeTerminalText("a\u001b[2J\u001b[Hb\u001b[1;1Hc")).toBe("abc");
    expect(sanitizeTerminalText("\u001b]0;pwned\u0007title")).toBe("title");
    expect(sanitizeTerminalText("\u001b]8;;https://evil\u001b\\link\u001b]8;;\u001b\\")).toBe(
      "link",
    );
    expect(sanitizeTerminalText("\u001bPq#0;2;0;0;0\u001b\\after")).toBe("after");
    expect(sanitizeTerminalText("\u009b31mred")).toBe("red");
    expect(sanitizeTerminalText("\u001bcreset")).toBe("reset");
  });

  it("keeps newlines and tabs, folds CR LF and shows every other control character", () => {
    expect(sanitizeTerminalText("a\tb\nc\r\nd")).toBe("a\tb\nc\nd");
    expect(sanitizeTerminalText("fake\rprompt\b\u0007\u0000\u007f\u0085")).toBe(
      "fake\uFFFDprompt\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD",
    );
  });

  it("leaves an unfinished sequence harmless and plain text untouched", () => {
    expect(sanitizeTerminalText("\u001b]0;no end")).toBe("0;no end");
    expect(sanitizeTerminalText("\u001b")).toBe("");
    expect(sanitizeTerminalText("naïve — 日本語 ✓")).toBe("naïve — 日本語 ✓");
  });
});

describe("shellQuote", () => {
  it("leaves plain words alone and single-quotes anything else", () => {
    expect(shellQuote("uwf-mock")).toBe("uwf-mock");
    expect(shellQuote("./bin/agent.js")).toBe("./bin/agent.js");
    expect(shellQuote("uwf-mock; touch /tmp/x")).toBe("'uwf-mock; touch /tmp/x'");
    expect(shellQuote("it's $(x)")).toBe("'it'\\''s $(x)'");
    expect(shellQuote("")).toBe("''");
  });

  it("gives the shell back exactly the value, whatever it contains", () => {
    for (const value of ["a b", "x;rm -rf y", "`id`", "$HOME", "it's", '"q"', "a\nb", "*", ""]) {
      const echoed = execFileSync("sh", ["-c", `printf '%s' ${shellQuote(value)}`], {
        encoding: "utf8",
      });
      expect(echoed).toBe(value);
    }
  });
});
