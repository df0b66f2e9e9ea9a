import { describe, expect, it } from "vitest";
import { hiddenCharacter, hiddenCharacterProblem, quoteVisibly } from "./hidden-characters.js";

describe("hidden characters", () => {
  it("finds controls, zero-width and bidi characters, the BOM and odd spaces", () => {
    for (const c of [
      "\u0000",
      "\t",
      "\n",
      "\u001b",
      "\u007f",
      "\u0085",
      "\u009b",
      "\u00ad",
      "\u200b",
      "\u200d",
      "\u200e",
      "\u202e",
      "\u2066",
      "\u2028",
      "\u00a0",
      "\u3000",
      "\ufeff",
      "\ufe0f",
      "\u{e0041}",
      "\ud800",
    ]) {
      expect(hiddenCharacter(`ok${c}`), JSON.stringify(c)).toEqual({
        codePoint: c.codePointAt(0),
        index: 2,
      });
    }
  });

  it("lets every visible character through, a plain space and other scripts included", () => {
    for (const text of ["done", "needs work", "$SUSPEND", "fertig-ü", "完成", "готово", "✅ ok"]) {
      expect(hiddenCharacter(text)).toBeNull();
      expect(hiddenCharacterProblem("$status", text)).toBeNull();
    }
  });

  it("says what and where, showing each hidden character as an escape", () => {
    expect(hiddenCharacterProblem('"$status"', "done\u200b")).toBe(
      '"$status" "done\\u{200B}" holds an invisible or control character (U+200B at position 5)',
    );
    expect(quoteVisibly('a"\u202eb\u0007')).toBe('"a\\"\\u{202E}b\\u{0007}"');
  });
});
