import { describe, expect, it } from "vitest";
import { displayWidth, relativeTime, renderTable } from "./table.js";

describe("renderTable", () => {
  it("aligns columns under an upper-case header, numbers to the right", () => {
    expect(
      renderTable(
        [{ header: "name" }, { header: "steps", align: "right" }, { header: "note" }],
        [
          ["hello", "3", "ok"],
          ["solve-issue", "12", ""],
        ],
      ),
    ).toBe(["NAME         STEPS  NOTE", "hello            3  ok", "solve-issue     12"].join("\n"));
  });

  it("pads by terminal cells, so wide and combining characters stay aligned", () => {
    const table = renderTable(
      [{ header: "role" }, { header: "status" }],
      [
        ["審査員", "done"],
        ["café", "done"],
        ["cafe\u0301", "done"],
        ["🚀 go", "done"],
      ],
    );
    const lines = table.split("\n");
    // Every "done" starts in the same terminal column.
    const columns = lines.slice(1).map((line) => displayWidth(line.slice(0, line.indexOf("done"))));
    expect(new Set(columns)).toEqual(new Set([8]));
  });
});

describe("displayWidth", () => {
  it("counts cells: CJK and emoji two, combining marks and escapes none", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("審査")).toBe(4);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("🚀")).toBe(2);
    expect(displayWidth("\u001b[31mred\u001b[0m")).toBe(3);
  });
});

describe("relativeTime", () => {
  const now = Date.parse("2026-01-31T12:00:00Z");
  it("says how long ago, in the largest whole unit", () => {
    expect(relativeTime("2026-01-31T12:00:00.400Z", now)).toBe("just now");
    expect(relativeTime("2026-01-31T11:59:15Z", now)).toBe("45 s ago");
    expect(relativeTime("2026-01-31T11:57:00Z", now)).toBe("3 min ago");
    expect(relativeTime("2026-01-31T09:30:00Z", now)).toBe("2 h ago");
    expect(relativeTime("2026-01-29T12:00:00Z", now)).toBe("2 d ago");
    expect(relativeTime("2026-01-31T12:05:00Z", now)).toBe("in 5 min");
  });
  it("gives the day after a month, and leaves what is not a time alone", () => {
    expect(relativeTime("2025-11-02T08:00:00Z", now)).toBe("2025-11-02");
    expect(relativeTime("", now)).toBe("");
    expect(relativeTime("soon", now)).toBe("soon");
  });
});
