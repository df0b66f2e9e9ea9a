import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import {
  ASSETS_MODULE,
  assetsModule,
  buildDashboardAssets,
} from "./scripts/lib/dashboard-assets.mjs";

const pkg = (name: string) =>
  fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
  plugins: [
    {
      // The dashboard's stand-in asset module gets the built script and stylesheet, as in the
      // CLI's bundle (scripts/bundle.mjs), straight from their sources.
      name: "uwf-dashboard-assets",
      async load(id) {
        if (!ASSETS_MODULE.test(id)) return null;
        const assets = await buildDashboardAssets();
        for (const input of assets.inputs) this.addWatchFile(input);
        return assetsModule(assets);
      },
    },
  ],
  resolve: {
    // Unit tests run against the sources; end-to-end tests run the built binaries.
    // An entry point other than a package's index comes before that package's own alias.
    alias: {
      "@united-workforce/engine/adapter": fileURLToPath(
        new URL("./packages/engine/src/adapter.ts", import.meta.url),
      ),
      "@united-workforce/agent-kit/entry": fileURLToPath(
        new URL("./packages/agent-kit/src/entry.ts", import.meta.url),
      ),
      "@united-workforce/store/backend": fileURLToPath(
        new URL("./packages/store/src/backend.ts", import.meta.url),
      ),
      "@united-workforce/protocol": pkg("protocol"),
      "@united-workforce/util": pkg("util"),
      "@united-workforce/store": pkg("store"),
      "@united-workforce/store-postgres": pkg("store-postgres"),
      "@united-workforce/engine": pkg("engine"),
      "@united-workforce/agent-kit": pkg("agent-kit"),
      "@united-workforce/test-utils": pkg("test-utils"),
    },
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/e2e/**/*.test.ts", "scripts/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
