import { describe, expect, it } from "vitest";
import { deadPid } from "../__testing__/store-fixtures.js";
import { isAlive, pidExists, processIdentity } from "./process-identity.js";

describe("process identity", () => {
  it("recognises this process, and not a dead or reused pid", () => {
    const self = processIdentity(process.pid);
    expect(self.startTime).toMatch(/^\d+$/);
    expect(isAlive(self)).toBe(true);
    expect(isAlive({ pid: process.pid, startTime: "1" })).toBe(false);
    const dead = deadPid();
    expect(isAlive({ pid: dead, startTime: null })).toBe(false);
    expect(pidExists(dead)).toBe(false);
    expect(pidExists(0)).toBe(false);
    expect(pidExists(-1)).toBe(false);
  });
});
