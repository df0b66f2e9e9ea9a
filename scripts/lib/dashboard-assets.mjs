// Builds what `uwf dashboard` serves to the browser, with esbuild: the script from the
// TypeScript modules in packages/cli/src/dashboard/browser/ (type-checked by their own tsconfig,
// DOM and no Node types, in `tsc -b`) and the stylesheet packages/cli/src/dashboard/assets/
// style.css. The server imports both from `dashboard/assets/index.ts`, a stand-in that the CLI's
// bundle (scripts/bundle.mjs) and the unit tests (vitest.config.ts) replace with
// `assetsModule(…)`, so the text is served from memory with no file to find at run time.
//
// The script is one ES2020 file, not minified: it is small, cached, read over the loopback, and
// developer tools then show our names. The stylesheet is minified: its formatted source is twice
// the size, and minifying keeps every selector as written (docs/decisions.md, "The dashboard").
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, formatMessages } from "esbuild";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dashboard = `${root}packages/cli/src/dashboard`;

/** The stand-in module (`src/…/index.ts` under vitest, tsc's `dist/…/index.js` in the bundle). */
export const ASSETS_MODULE =
  /packages[\\/]cli[\\/](?:src|dist)[\\/]dashboard[\\/]assets[\\/]index\.[jt]s$/;

/**
 * `@united-workforce/<name>` imports resolve to the package's TypeScript sources, not its built
 * `dist`, so the script builds before (and without) `tsc -b`. Only pure modules can come in: an
 * import of a Node built-in stops the build, naming the module that made it.
 */
const workspaceSources = {
  name: "uwf-workspace-sources",
  setup(b) {
    b.onResolve({ filter: /^@united-workforce\/[a-z0-9-]+$/ }, ({ path }) => {
      const source = `${root}packages/${path.slice("@united-workforce/".length)}/src/index.ts`;
      return existsSync(source) ? { path: source } : undefined;
    });
    b.onResolve({ filter: /^node:/ }, ({ path, importer }) => ({
      errors: [
        {
          text: `${path} is Node's: the dashboard's browser script may import only pure modules (imported by ${importer})`,
        },
      ],
    }));
  },
};

const COMMON = {
  absWorkingDir: root,
  bundle: true,
  write: false,
  metafile: true,
  charset: "ascii",
  legalComments: "none",
  logLevel: "silent",
};

/**
 * The script and stylesheet as served, and the files they were built from (for a watcher).
 * Rejects on any esbuild error or warning.
 */
export async function buildDashboardAssets() {
  const [script, style] = await Promise.all([
    buildBrowserScript(`${dashboard}/browser/main.ts`),
    buildOne({ entryPoints: [`${dashboard}/assets/style.css`], minify: true }),
  ]);
  return {
    script: script.text,
    style: style.text,
    inputs: [...script.inputs, ...style.inputs],
  };
}

/** The browser script bundled from `entry`, with the files it was built from. */
export function buildBrowserScript(entry) {
  return buildOne({
    entryPoints: [entry],
    format: "iife",
    platform: "browser",
    target: "es2020",
    tsconfig: `${dashboard}/browser/tsconfig.json`,
    plugins: [workspaceSources],
  });
}

async function buildOne(options) {
  const result = await build({ ...COMMON, ...options });
  if (result.warnings.length > 0) {
    const text = await formatMessages(result.warnings, { kind: "warning" });
    throw new Error(`the dashboard's assets built with warnings:\n${text.join("\n")}`);
  }
  return {
    text: result.outputFiles[0].text,
    inputs: Object.keys(result.metafile.inputs).map((path) => `${root}${path}`),
  };
}

/** The stand-in's replacement: the built text as the constants the server imports. */
export function assetsModule({ script, style }) {
  return [
    `export const APP_JS = ${JSON.stringify(script)};`,
    `export const STYLE_CSS = ${JSON.stringify(style)};`,
    "",
  ].join("\n");
}
