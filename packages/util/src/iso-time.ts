/**
 * `new Date(ms).toISOString()`, the same text, built from the UTC getters. V8's `toISOString`
 * loads the local time zone on its first call (`/etc/localtime`, ≈ 0.2 ms per process) although
 * its text is UTC; every step's log line and pointer write paid it in uwf and in its adapter.
 * Years outside 0–9999, which `toISOString` writes with six digits and a sign, go to it.
 */
export function isoTime(ms: number = Date.now()): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (!(year >= 0 && year <= 9999)) return date.toISOString();
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(
    date.getUTCHours(),
    2,
  )}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}Z`;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}
