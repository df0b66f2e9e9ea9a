/**
 * Where a guide lives for someone who installed uwf from the registry: the published packages
 * ship no `docs/` folder, so messages link to the repository's copy instead of a path.
 */
export const DOCS_BASE_URL = "https://github.com/united-workforce/uwf/blob/main/docs";

/** `docsUrl("config.md")` → the page on the repository's main branch. */
export function docsUrl(page: string): string {
  return `${DOCS_BASE_URL}/${page}`;
}
