import { describe, expect, it } from "vitest";
import { nodeCheck } from "./doctor.js";

describe("doctor's node check", () => {
  it("passes Node 20.16 and later, and fails older ones naming the version uwf needs", () => {
    expect(["20.16.0", "20.20.2", "22.1.0", "24.0.0"].map((v) => nodeCheck(v).ok)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(nodeCheck("20.15.1")).toEqual({
      name: "node",
      ok: false,
      detail: "v20.15.1 is older than 20.16",
      hint: "Install Node 20.16 or newer (https://nodejs.org, or nvm install --lts).",
    });
    expect(nodeCheck("18.19.0").ok).toBe(false);
  });
});
