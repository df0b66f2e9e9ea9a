import { describe, expect, it } from "vitest";
import { splitCommand } from "./command-line.js";

describe("splitCommand", () => {
  it("splits on whitespace and honours quotes", () => {
    expect(splitCommand(`node  a.js --x 'y z' "w"`)).toEqual(["node", "a.js", "--x", "y z", "w"]);
  });

  it("reads backslashes and quotes inside a word as a shell would, expanding nothing", () => {
    expect(splitCommand(String.raw`uwf-mock --scenario /tmp/a\ b/s.yaml`)).toEqual([
      "uwf-mock",
      "--scenario",
      "/tmp/a b/s.yaml",
    ]);
    expect(splitCommand(`x --title="a b" --q='it'"'"'s'`)).toEqual([
      "x",
      "--title=a b",
      "--q=it's",
    ]);
    expect(splitCommand(String.raw`x "say \"hi\" \\ \n" '\' $HOME`)).toEqual([
      "x",
      String.raw`say "hi" \ \n`,
      "\\",
      "$HOME",
    ]);
    expect(splitCommand(`x "" ''`)).toEqual(["x", "", ""]);
  });

  it("refuses an unclosed quote", () => {
    expect(() => splitCommand(`uwf-mock --scenario "a b`)).toThrowError(
      expect.objectContaining({ code: "USAGE", message: expect.stringContaining('unclosed "') }),
    );
  });
});
