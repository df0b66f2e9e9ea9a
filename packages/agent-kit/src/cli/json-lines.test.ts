import { describe, expect, it } from "vitest";
import { jsonLineHandler, parseJsonLine, readJsonLines } from "./json-lines.js";

describe("JSON lines", () => {
  it("parses objects, skips blank lines and reports everything else", () => {
    const { values, invalid } = readJsonLines(
      '{"type":"a"}\n\n  \nWarning: no colours\r\n[1,2]\n{"type":"b"}\r\n{"cut',
    );
    expect(values).toEqual([{ type: "a" }, { type: "b" }]);
    expect(invalid.map((i) => i.line)).toEqual(["Warning: no colours", "[1,2]", '{"cut']);
    expect(invalid[1]!.error).toBe("not a JSON object");
  });

  it("hands values and invalid lines to their callbacks as lines arrive", () => {
    const seen: string[] = [];
    const handle = jsonLineHandler(
      (value) => seen.push(`value ${String(value.n)}`),
      (bad) => seen.push(`invalid ${bad.line}`),
    );
    for (const line of ['{"n":1}', "oops", "", '{"n":2}']) handle(line);
    expect(seen).toEqual(["value 1", "invalid oops", "value 2"]);
    expect(parseJsonLine("   ")).toBeNull();
  });
});
