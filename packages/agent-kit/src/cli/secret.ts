/**
 * `text` with every occurrence of `secret` replaced by `****`. A model server may echo the
 * API key in an error (some repeat the `Authorization` header in a 401), and an adapter passes
 * such errors on: to stderr, and through uwf to the thread's suspension reason and the logs.
 * Mask before cutting a message to length: a cut through the key would leave part of it.
 */
export function maskSecret(text: string, secret: string | null | undefined): string {
  return secret ? text.split(secret).join("****") : text;
}
