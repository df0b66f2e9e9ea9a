/**
 * Canonical JSON: object keys sorted by code unit, no insignificant whitespace, `undefined`
 * members dropped. Equal values always give equal bytes, so equal nodes get equal hashes.
 */
export function canonicalJson(value: unknown): string {
  const out = write(value);
  if (out === undefined) throw new TypeError("canonicalJson: value is not representable in JSON");
  return out;
}

function write(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("canonicalJson: non-finite number");
      return JSON.stringify(value);
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "bigint":
      throw new TypeError("canonicalJson: bigint is not JSON");
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => write(item) ?? "null").join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const member = write(record[key]);
    if (member !== undefined) parts.push(`${JSON.stringify(key)}:${member}`);
  }
  return `{${parts.join(",")}}`;
}
