import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { APP_JS, STYLE_CSS } from "./index.js";

describe("the dashboard's assets", () => {
  it("are the script built from browser/: one strict classic script, no module syntax", () => {
    expect(() => new Script(APP_JS)).not.toThrow();
    expect(APP_JS.startsWith('"use strict";')).toBe(true);
    expect(APP_JS).toContain("function followThreadPage(");
  });

  it("are the stylesheet built from style.css", () => {
    expect(STYLE_CSS).toContain(".badge{");
    expect(STYLE_CSS).not.toContain("\n  ");
  });
});
