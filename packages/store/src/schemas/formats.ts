import { CAS_REF_FORMAT, HASH_PATTERN } from "@united-workforce/protocol";

/**
 * The formats uwf adds to ajv. Registered as objects rather than bare regular expressions so
 * that generated validator code reaches them through `require(FORMATS_MODULE)` (served by the
 * disk cache's require shim from this very object) instead of copying the pattern into cached
 * code: a change of `HASH_PATTERN` then applies to cached validators too.
 */
export const FORMATS: Readonly<Record<string, { type: "string"; validate: RegExp }>> = {
  [CAS_REF_FORMAT]: { type: "string", validate: HASH_PATTERN },
};

/** The module id generated code requires to get `FORMATS`; no real package has this name. */
export const FORMATS_MODULE = "uwf:validator-formats";
