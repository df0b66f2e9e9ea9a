/** `store:` values that select the PostgreSQL backend. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

const SECRET_PARAMS = new Set(["password", "sslpassword", "sslkey"]);

/**
 * The URL as it may be shown: the password (in the user part or in a query parameter) becomes
 * `****`, the mask `uwf config list` shows too. Never throws: a URL that does not parse is
 * reduced to its scheme and host-ish part.
 */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//****@").replace(/\?.*$/, "");
  }
  if (parsed.password !== "") parsed.password = "****";
  for (const key of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.has(key.toLowerCase())) parsed.searchParams.set(key, "****");
  }
  // URLSearchParams encodes `*` as `%2A`; keep the mask readable.
  return parsed.toString().replace(/%2A%2A%2A%2A/g, "****");
}
