import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlm, freePort, startFakeLlm } from "@united-workforce/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkReachable, commandVersion } from "./checks.js";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm({});
});
afterAll(() => fake.close());

describe("checkReachable", () => {
  it("takes any HTTP answer, an error status as a warning that shows it", async () => {
    const check = await checkReachable("provider p", fake.baseUrl, { timeoutMs: 10_000 });
    expect(check).toMatchObject({
      name: "provider p",
      ok: true,
      warning: true,
      detail: `${fake.baseUrl} answered HTTP 404: the host is up, the URL itself is not a page`,
    });
    expect(check.hint).toContain("uwf config set providers.p.baseUrl <url>");
  });

  it("fails when nothing answers", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const check = await checkReachable("provider p", url, { timeoutMs: 10_000 });
    expect(check).toMatchObject({ ok: false, detail: `cannot reach ${url}: ECONNREFUSED` });
    expect(check.hint).toContain("uwf config set providers.p.baseUrl");
  });
});

describe("commandVersion", () => {
  it("runs --version with only PATH and HOME, and keeps the first line", async () => {
    const script = `console.log(process.argv[2], Object.keys(process.env).sort().join(","))`;
    const node = process.execPath;
    const dir = mkdtempSync(join(tmpdir(), "uwf-version-"));
    try {
      const bin = join(dir, "agent");
      writeFileSync(bin, `#!${node}\n${script}\n`);
      chmodSync(bin, 0o755);
      const env = { PATH: process.env.PATH, HOME: dir, SECRET_TOKEN: "x" };
      expect(await commandVersion(bin, env, 10_000)).toEqual({
        version: "--version HOME,PATH",
        problem: null,
      });
      writeFileSync(bin, `#!${node}\nprocess.exit(2)\n`);
      expect(await commandVersion(bin, env, 10_000)).toEqual({
        version: null,
        problem: "--version failed (exit 2)",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
