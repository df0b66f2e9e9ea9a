import { parse } from "dotenv";
import { describe, expect, it } from "vitest";
import { parseDotenv } from "./dotenv.js";

// parseDotenv reproduces the dotenv package's parse without loading the package (it loads
// node:crypto at import): every text here must read the same with both.
const TEXTS = [
  "",
  "A=1",
  "A=1\nB=two\n",
  "export A=1\n  export   B = spaced value  \n",
  "A: yaml style\nB:no-space\nC:  two",
  "A=with # comment\nB=#not a value\nC=x#y",
  "A='single # kept'\nB=\"double # kept\"\nC=`back # kept`",
  "A=\"line\\nbreak\\rreturn\"\nB='no\\nexpansion'\nC=`no\\nexpansion`",
  'A="multi\nline\nvalue"\nB=after',
  "A='multi\nline'\nB=`multi\nline`",
  "A=1\r\nB=2\rC=3\r\n",
  "A=\nB=  \nC=''\nD=\"\"",
  "  # a comment line\n\nA=1 # trailing\n#B=2",
  "DOTTED.KEY=1\nDASHED-KEY=2\nunder_score=3\n123=digits",
  'A="unterminated\nB=2',
  "A='unterminated\nB=3",
  'A="a \\"quoted\\" word"\nB=\'it\\\'s\'',
  "A=first\nA=second",
  "__proto__=x\nconstructor=y\ntoString=z",
  "no equals here\n=novalue\nA =  b = c",
  "A=é ü 日本\nB=\t tabbed \t",
  "A=\"x\" trailing\nB='y' # c\nC=`z`zz",
];

describe("parseDotenv", () => {
  it("reads every text as dotenv's parse does", () => {
    for (const text of TEXTS) expect(parseDotenv(text), JSON.stringify(text)).toEqual(parse(text));
  });

  it("reads random texts of .env punctuation as dotenv's parse does", () => {
    const pieces = ["A", "b_", ".", "-", "=", ":", " ", "\t", "\n", "\r", "#", "'", '"', "`"];
    const more = ["\\", "n", "r", "export ", "x", "1"];
    const alphabet = [...pieces, ...more];
    let seed = 11;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 2_000; i++) {
      let text = "";
      const length = next() % 40;
      for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
      expect(parseDotenv(text), JSON.stringify(text)).toEqual(parse(text));
    }
  });
});
