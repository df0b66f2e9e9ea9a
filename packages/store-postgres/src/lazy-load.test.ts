import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertBuiltIsFresh,
  assertBuiltStoreIsFresh,
  storeDistDir,
} from "../../store/src/__testing__/built-store.js";
import { packageDirs } from "./__testing__/package-dirs.js";

/**
 * Every uwf process opens the store, most of them on the filesystem: those must never load this
 * package or the PostgreSQL driver, though the CLI and the adapters always give `openStore` the
 * loader of this package. Checked in a fresh process importing the built packages.
 */

const home = mkdtempSync(join(tmpdir(), "uwf-lazy-pg-"));
beforeAll(() => {
  assertBuiltStoreIsFresh();
  assertBuiltIsFresh(packageDirs);
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Open a store with `url`, put a text node, and report which of pg and this package loaded. */
function loadedAfterOpening(url: string): { pg: boolean; backend: boolean; error: string | null } {
  const href = (dir: string) => JSON.stringify(pathToFileURL(join(dir, "index.js")).href);
  const script = `
    import { createRequire } from "node:module";
    const { openStore } = await import(${href(storeDistDir)});
    let backend = false;
    const backends = { postgres: () => { backend = true; return import(${href(packageDirs.dist)}); } };
    let error = null;
    try {
      const store = await openStore({ home: ${JSON.stringify(home)}, url: ${JSON.stringify(url)}, backends });
      await store.cas.putText("hello");
      await store.close();
    } catch (e) {
      error = e.code ?? String(e);
    }
    const pg = Object.keys(createRequire(import.meta.url).cache).some((path) =>
      /[\\\\/]node_modules[\\\\/](\\.pnpm[\\\\/])?pg[@\\\\/]/.test(path),
    );
    process.stdout.write(JSON.stringify({ pg, backend, error }));`;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`the probe failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe("the PostgreSQL backend and driver", () => {
  it("are not loaded by a process that uses the filesystem store", () => {
    expect(loadedAfterOpening("fs")).toEqual({ pg: false, backend: false, error: null });
  });

  it("are loaded once a postgres URL is opened", () => {
    expect(loadedAfterOpening("postgres://uwf@127.0.0.1:1/uwf")).toEqual({
      pg: true,
      backend: true,
      error: "STORE_UNAVAILABLE",
    });
  });
});
