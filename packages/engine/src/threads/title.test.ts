import { describe, expect, it } from "vitest";
import { TITLE_MAX_LENGTH, titleFromItem, titleFromText } from "./title.js";

describe("titleFromText", () => {
  it("takes the first line that says something, without markdown marks", () => {
    expect(titleFromText("\n\n## Fix the login timeout\n\nDetails follow.")).toBe(
      "Fix the login timeout",
    );
    expect(titleFromText("- review   src/a.ts\n- and b")).toBe("review src/a.ts");
    expect(titleFromText("   \n\t\n")).toBe("");
  });

  it("cuts a long line at a word, marking the cut", () => {
    const long = `${"word ".repeat(30)}end`;
    const title = titleFromText(long);
    expect([...title].length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(title.endsWith("word…")).toBe(true);
    // One long token is cut where it must be.
    expect(titleFromText("x".repeat(200))).toBe(`${"x".repeat(TITLE_MAX_LENGTH - 1)}…`);
  });

  it("drops terminal escapes and control characters", () => {
    expect(titleFromText("\u001b[31mred\u001b[0m alert\u0007")).toBe("red alert");
  });
});

describe("titleFromItem", () => {
  it("names a child by its item", () => {
    expect(titleFromItem("src/a.ts", "Review src/a.ts", 0)).toBe("src/a.ts");
    expect(titleFromItem({ path: "src/b.ts", depth: 2 }, "Review", 1)).toBe("src/b.ts");
    expect(titleFromItem({ depth: 2 }, "Review", 2)).toBe('{"depth":2}');
    expect(titleFromItem(42, "Review", 3)).toBe("42");
    expect(titleFromItem("", "Review", 4)).toBe("item 4");
    // A sub-workflow's one child has no item: its task names it.
    expect(titleFromItem(null, "Check the build\nthen report", 0)).toBe("Check the build");
  });
});
