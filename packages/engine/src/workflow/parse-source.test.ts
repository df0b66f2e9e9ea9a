import { describe, expect, test } from "vitest";
import { decodeUtf8, parseJsonSource, parseYamlSource } from "./parse-source.js";

/** What a parse function returns and the problems it pushed. */
function run<T>(parse: (problems: string[]) => T): { value: T; problems: string[] } {
  const problems: string[] = [];
  const value = parse(problems);
  return { value, problems };
}

const decode = (bytes: number[] | Buffer) =>
  run((problems) => decodeUtf8(Buffer.from(bytes), "f.md", problems));

describe("decodeUtf8", () => {
  test("multi-byte characters decode; a UTF-8 byte order mark is dropped", () => {
    expect(decode(Buffer.from("é ✓ 😀"))).toEqual({ value: "é ✓ 😀", problems: [] });
    expect(decode([0xef, 0xbb, 0xbf, 0x61])).toEqual({ value: "a", problems: [] });
  });

  test.each([
    ["a lone continuation byte", [0x61, 0x80], "0x80 at offset 1"],
    ["an overlong encoding of NUL", [0x61, 0xc0, 0x80], "0xC0 at offset 1"],
    ["an overlong three-byte form", [0xe0, 0x80, 0xaf], "0xE0 at offset 0"],
    ["a UTF-16 surrogate", [0x61, 0xed, 0xa0, 0x80], "0xED at offset 1"],
    ["a code point past U+10FFFF", [0xf4, 0x90, 0x80, 0x80], "0xF4 at offset 0"],
    ["a byte no UTF-8 uses", [0x61, 0x62, 0xff], "0xFF at offset 2"],
    ["a sequence cut off by the end of the file", [0x61, 0xe2, 0x82], "0xE2 at offset 1"],
  ])("%s is reported at the byte that starts it", (_, bytes, where) => {
    const { value, problems } = decode(bytes);
    expect(value).toBeNull();
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`: the file is not valid UTF-8: byte ${where} (`);
  });

  test("the line and column count characters, not bytes, and not the byte order mark", () => {
    const bytes = Buffer.concat([Buffer.from("\ufeffé\nüü "), Buffer.from([0xe9])]);
    expect(decode(bytes).problems).toEqual([
      "f.md:2:4: the file is not valid UTF-8: byte 0xE9 at offset 11 (Latin-1 or Windows-1252 text?): save the file as UTF-8",
    ]);
  });
});

const yaml = (source: string) => run((problems) => parseYamlSource(source, "w.yaml", [], problems));

describe("parseYamlSource", () => {
  test("each duplicate key is named at its second use", () => {
    const { value, problems } = yaml("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n'': x\n? ''\n: y\n");
    expect(value).toBeNull();
    expect(problems).toEqual([
      'w.yaml:4:3: key "c" appears twice in this mapping; keep one',
      'w.yaml:5:1: key "a" appears twice in this mapping; keep one',
      'w.yaml:7:3: key "" appears twice in this mapping; keep one',
    ]);
  });

  test("a duplicate key YAML reads as another value is named as written", () => {
    expect(yaml("s:\n  null: a\n  ~: b\n  x: 1\n  1.0: c\n  1: d\n").problems).toEqual([
      "w.yaml:3:3: key ~ (which YAML reads as a null; quote it to mean the word) appears twice in this mapping; keep one",
      'w.yaml:6:3: key "1" appears twice in this mapping; keep one',
    ]);
  });

  test("a second document after an end marker is refused too", () => {
    expect(yaml("a: 1\n...\nb: 2\n").problems).toEqual([
      "w.yaml:3:1: a workflow file holds one YAML document; this one has a second: remove it or split the file",
    ]);
  });

  test.each([
    ["!Include", "did you mean !include?"],
    ["!includes", "did you mean !include?"],
    ["!inc", "uwf knows only !include"],
    ["!!foo", "uwf knows only !include"],
  ])("the unknown tag %s: %s", (tag, advice) => {
    expect(yaml(`a: ${tag} x\n`).problems).toEqual([`w.yaml:1:4: unknown tag ${tag}: ${advice}`]);
  });

  test("YAML's own tags still work", () => {
    expect(yaml("a: !!str 1\n").value?.toJS()).toEqual({ a: "1" });
  });
});

const json = (source: string) => run((problems) => parseJsonSource(source, "s.json", problems));

describe("parseJsonSource", () => {
  test("equal keys in different objects are fine", () => {
    const source = '{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": {}, "d": "\\"a\\": 1"}';
    expect(json(source)).toEqual({ value: JSON.parse(source), problems: [] });
  });

  test.each([
    ["nested", '{"x": {"a": 1, "b": [], "a": 2}}', '1:25: key "a"'],
    ["after a nested object", '{"a": {"b": 1}, "a": 2}', '1:17: key "a"'],
    ["written with an escape", '{"a": 1, "\\u0061": 2}', '1:10: key "a"'],
    ["ending in an escaped backslash", '{"a\\\\": 1, "a\\\\": 2}', '1:12: key "a\\\\"'],
  ])("a duplicate key %s is found", (_, source, where) => {
    expect(json(source)).toEqual({
      value: null,
      problems: [`s.json:${where} appears twice in this object; keep one`],
    });
  });

  test("a syntax error says where; one at the end of the text says so", () => {
    expect(json('{"a": 1,\n "b": 2,\n}').problems).toEqual([
      "s.json:3:1: invalid JSON: Expected double-quoted property name in JSON at position 18",
    ]);
    expect(json('{"a": ').problems).toEqual(["s.json: invalid JSON: Unexpected end of JSON input"]);
  });
});
