/**
 * The dashboard's script and stylesheet as served: built from `../browser/` (TypeScript) and
 * `style.css` by scripts/lib/dashboard-assets.mjs. This module is a stand-in: the CLI's bundle
 * (scripts/bundle.mjs) and the unit tests (vitest.config.ts) replace it with the built text, so
 * the server serves it from memory. Unbundled (tsc's `dist` run directly), pages are served
 * without them: unstyled, with no live updates.
 */
export const APP_JS: string = "";
export const STYLE_CSS: string = "";
