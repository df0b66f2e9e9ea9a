import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "./frontmatter.js";

describe("parseFrontmatter", () => {
  it("reads a plain block and keeps the body", () => {
    const parsed = parseFrontmatter("---\n$status: done\nplan: x\n---\n# Body\n\ntext\n");
    expect(parsed.data).toEqual({ $status: "done", plan: "x" });
    expect(parsed.body).toBe("# Body\n\ntext\n");
    expect(parsed.error).toBeNull();
  });

  it("tolerates a BOM, leading blank lines and CRLF", () => {
    const parsed = parseFrontmatter("\uFEFF\r\n\r\n---\r\n$status: ok\r\n---\r\nbody\r\n");
    expect(parsed.data).toEqual({ $status: "ok" });
    expect(parsed.body).toBe("body\n");
  });

  it("accepts a block wrapped in a ```yaml fence, with or without --- lines", () => {
    expect(parseFrontmatter("```yaml\n---\n$status: a\n---\n```\nrest").data).toEqual({
      $status: "a",
    });
    const bare = parseFrontmatter("```yaml\n$status: b\n```\n\nrest");
    expect(bare.data).toEqual({ $status: "b" });
    expect(bare.body).toBe("rest");
  });

  it("reports text with no frontmatter as not found", () => {
    const parsed = parseFrontmatter("Just an answer.");
    expect(parsed.found).toBe(false);
    expect(parsed.data).toBeNull();
    expect(parsed.body).toBe("Just an answer.");
  });

  it("says why a block could not be used", () => {
    expect(parseFrontmatter("---\n$status: [\n---\n").error).toMatch(/not valid YAML/);
    expect(parseFrontmatter("---\n- a\n- b\n---\n").error).toBe(
      "frontmatter is not a YAML mapping",
    );
    expect(parseFrontmatter("---\n$status: a\n").error).toMatch(/no closing ---/);
  });

  it("refuses alias bombs instead of expanding them", () => {
    const bomb = [
      "---",
      "a: &a [x, x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
      "---",
      "",
    ].join("\n");
    const parsed = parseFrontmatter(bomb);
    expect(parsed.data).toBeNull();
    expect(parsed.error).toMatch(/not valid YAML/);
  });
});
