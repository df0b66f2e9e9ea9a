import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runUwf, type TempHome, tempHome, UWF_BIN } from "@united-workforce/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

describe("a reader that stops early", () => {
  let temp: TempHome;
  beforeEach(() => {
    temp = tempHome();
  });
  afterEach(() => temp.cleanup());

  it("ends uwf quietly instead of with an EPIPE stack trace", async () => {
    const file = join(temp.home, "big.txt");
    writeFileSync(file, "a".repeat(2_000_000));
    const hash = (await runUwf(["cas", "put-text", "-f", file], { home: temp.home })).stdout.trim();

    const child = spawn(process.execPath, [UWF_BIN, "cas", "get", hash], {
      env: { ...process.env, UWF_HOME: temp.home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
