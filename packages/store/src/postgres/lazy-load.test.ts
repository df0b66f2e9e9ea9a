import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuiltStoreIsFresh, storeDistDir } from "../__testing__/built-store.js";

/**
 * Every uwf process opens the store, most of them on the filesystem: those must never load the
 * PostgreSQL driver. Checked in a fresh process importing the built store.
 */

const home = mkdtempSync(join(tmpdir(), "uwf-lazy-pg-"));
beforeAll(() => {
  assertBuiltStoreIsFresh();
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Open a store with `url`, put a text node, and report whether any `pg` module was loaded. */
function pgLoadedAfterOpening(url: string): { loaded: boolean; error: string | null } {
  const script = `
    import { createRequire } from "node:module";
    const { openStore } = await import(${JSON.stringify(pathToFileURL(join(storeDistDir, "index.js")).href)});
    let error = null;
    try {
      const store = await openStore({ home: ${JSON.stringify(home)}, url: ${JSON.stringify(url)} });
      await store.cas.putText("hello");
      await store.close();
    } catch (e) {
      error = e.code ?? String(e);
    }
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) =>
      /[\\\\/]node_modules[\\\\/](\\.pnpm[\\\\/])?pg[@\\\\/]/.test(path),
    );
    process.stdout.write(JSON.stringify({ loaded, error }));`;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`the probe failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe("the PostgreSQL driver", () => {
  it("is not loaded by a process that uses the filesystem store", () => {
    expect(pgLoadedAfterOpening("fs")).toEqual({ loaded: false, error: null });
  });

  it("is loaded once a postgres URL is opened", () => {
    expect(pgLoadedAfterOpening("postgres://uwf@127.0.0.1:1/uwf")).toEqual({
      loaded: true,
      error: "STORE_UNAVAILABLE",
    });
  });
});
