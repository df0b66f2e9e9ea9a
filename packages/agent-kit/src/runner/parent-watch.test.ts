import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { starterPid, watchParent } from "./parent-watch.js";

describe("watchParent", () => {
  it("fires at once when the uwf that started the adapter has already ended", async () => {
    const gone = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await once(gone, "exit");
    const watch = watchParent(gone.pid);
    expect(watch.signal.aborted).toBe(true);
    expect(String(watch.signal.reason)).toContain("the process that started this adapter exited");
  });

  it("keeps watching while the uwf that started the adapter runs", () => {
    const watch = watchParent(process.pid);
    expect(watch.signal.aborted).toBe(false);
    watch.stop();
  });

  it("is off when asked, even for a starter that has ended", async () => {
    const gone = spawn(process.execPath, ["-e", "0"], { stdio: "ignore" });
    await once(gone, "exit");
    expect(watchParent(gone.pid, null).signal.aborted).toBe(false);
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
