import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitCodeFor } from "@united-workforce/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { caught } from "./__testing__/store-fixtures.js";
import type { PostgresBackend } from "./api.js";
import { openStore } from "./open-store.js";

/**
 * A PostgreSQL store needs `@united-workforce/store-postgres`, which only its users install:
 * without it, opening one says so and how to install it. The package missing is simulated by a
 * loader that fails as Node's import of an absent package does (scripts/pack-check.mjs checks
 * the real thing in an install without it).
 */

const home = mkdtempSync(join(tmpdir(), "uwf-backend-packages-"));
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

const url = "postgres://ci:hunter2@db.example:5432/uwf";
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const install = `npm install -g @united-workforce/store-postgres@${version}`;

/** What `import("@united-workforce/store-postgres")` throws where it is not installed. */
function notInstalled(): Error {
  return Object.assign(
    new Error(
      "Cannot find package '@united-workforce/store-postgres' imported from /usr/lib/node_modules/@united-workforce/cli/dist/bundle/boot.cjs",
    ),
    { code: "ERR_MODULE_NOT_FOUND" },
  );
}

const failing =
  (error: unknown): (() => Promise<PostgresBackend>) =>
  () =>
    Promise.reject(error);

describe("opening a PostgreSQL store without its package", () => {
  it("says the package is not installed and how to install it", async () => {
    const error = await caught(() =>
      openStore({ home, url, backends: { postgres: failing(notInstalled()) } }),
    );
    expect(error.code).toBe("STORE_BACKEND_MISSING");
    expect(exitCodeFor(error.code)).toBe(1);
    expect(error.message).toBe(
      "the store postgres://ci:****@db.example:5432/uwf is PostgreSQL, and @united-workforce/store-postgres is not installed",
    );
    expect(error.hint).toBe(
      `install it beside uwf: \`npm run install-cli -- --postgres\` in the checkout uwf was installed from (once published: \`${install}\`) (https://github.com/united-workforce/uwf/blob/main/docs/postgres.md)`,
    );
  });

  it("recognises the bundled binaries' words for it too (they resolve its bundle)", async () => {
    // Resolved in a child without NODE_PATH: vitest's NODE_PATH holds pnpm's hoisted folder,
    // where the workspace's own copy of the package is found.
    const { NODE_PATH: _, ...env } = process.env;
    const probe = spawnSync(
      process.execPath,
      [
        "-e",
        `try { require.resolve("@united-workforce/store-postgres/bundle"); }
         catch (e) { process.stdout.write(JSON.stringify({ code: e.code, message: e.message })); }`,
      ],
      { cwd: home, env, encoding: "utf8" },
    );
    const { code, message } = JSON.parse(probe.stdout) as { code: string; message: string };
    const requireError = Object.assign(new Error(message), { code });
    const error = await caught(() =>
      openStore({ home, url, backends: { postgres: failing(requireError) } }),
    );
    expect(error.code).toBe("STORE_BACKEND_MISSING");
    expect(error.message).toMatch(/is not installed$/);
  });

  it("says what failed when the package is there but cannot load", async () => {
    const broken = Object.assign(
      new Error(
        "Cannot find package 'pg' imported from /usr/lib/node_modules/@united-workforce/store-postgres/dist/connection.js",
      ),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    const error = await caught(() =>
      openStore({ home, url, backends: { postgres: failing(broken) } }),
    );
    expect(error.code).toBe("STORE_BACKEND_MISSING");
    expect(error.message).toBe(
      "cannot load @united-workforce/store-postgres: Cannot find package 'pg' imported from /usr/lib/node_modules/@united-workforce/store-postgres/dist/connection.js",
    );
    expect(error.hint).toBe(`reinstall it: \`${install}\``);
    expect(error.cause).toBe(broken);
  });

  it("says so when the program was given no way to load it", async () => {
    const error = await caught(() => openStore({ home, url }));
    expect(error.code).toBe("STORE_BACKEND_MISSING");
    expect(error.message).toBe(
      "the store postgres://ci:****@db.example:5432/uwf is PostgreSQL, and this program cannot load it",
    );
  });

  it("is never looked for by a filesystem store", async () => {
    const store = await openStore({ home, backends: { postgres: failing(notInstalled()) } });
    await store.cas.putText("hello");
    await store.close();
  });
});
