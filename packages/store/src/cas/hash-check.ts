import { isHash } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";

/** Refuse anything that is not a CAS hash before it is used to build a path. */
export function assertHash(value: string, what = "hash"): void {
  if (isHash(value)) return;
  const upper = typeof value === "string" ? (value as string).trim().toUpperCase() : "";
  throw new UwfError(
    "HASH_INVALID",
    `${JSON.stringify(value)} is not a valid ${what}: a CAS hash is 13 upper-case Crockford Base32 characters (0-9 and A-Z without I, L, O, U), like 3QWJ6G2V7ZK1M`,
    {
      hint: isHash(upper)
        ? `hashes are upper-case: did you mean ${upper}?`
        : "copy the hash from the command that printed it (`uwf workflow list`, `uwf step list`, `uwf cas put-text`, …)",
    },
  );
}
