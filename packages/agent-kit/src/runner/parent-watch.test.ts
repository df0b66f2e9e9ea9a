import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { starterPid, watchParent } from "./parent-watch.js";

describe("watchParent", () => {
  it("fires at once when the uwf that started the adapter has already ended", async () => {
    const gone = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await once(gone, "exit");
    const reasons: Error[] = [];
    watchParent(gone.pid, (reason) => reasons.push(reason));
    expect(reasons.map(String)).toEqual(["Error: the process that started this adapter exited"]);
  });

  it("keeps watching while the uwf that started the adapter runs", () => {
    const reasons: Error[] = [];
    const watch = watchParent(process.pid, (reason) => reasons.push(reason));
    expect(reasons).toEqual([]);
    watch.stop();
  });

  it("is off when asked, even for a starter that has ended", async () => {
    const gone = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await once(gone, "exit");
    const reasons: Error[] = [];
    watchParent(gone.pid, (reason) => reasons.push(reason), null);
    expect(reasons).toEqual([]);
  });
});

describe("starterPid", () => {
  it("reads a pid, and ignores init, garbage and nothing", () => {
    expect(starterPid("4242")).toBe(4242);
    expect(starterPid("1")).toBeUndefined();
    expect(starterPid("0")).toBeUndefined();
    expect(starterPid("-5")).toBeUndefined();
    expect(starterPid("12abc")).toBeUndefined();
    expect(starterPid("")).toBeUndefined();
    expect(starterPid(undefined)).toBeUndefined();
  });
});
