import { CAS_REF_FORMAT, HASH_PATTERN } from "@united-workforce/protocol";
import { lazyRequire } from "@united-workforce/util";
import type { Format } from "ajv";
import type { FormatName } from "ajv-formats/dist/formats.js";

/** A format as ajv takes it: the JSON type it applies to and the test of one such value. */
export type FormatDefinition =
  | { type: "string"; validate: RegExp | ((value: string) => boolean) }
  | { type: "number"; validate: (value: number) => boolean };

// ajv-formats' "full" formats and the type each applies to. Written out rather than read from
// ajv-formats so that compiling a schema, and serving a cached validator its formats, loads
// none of it. Its type holds the names to the installed ajv-formats' own; a test, the types.
const STANDARD_FORMATS: Record<FormatName, FormatDefinition["type"]> = {
  date: "string",
  time: "string",
  "date-time": "string",
  "iso-time": "string",
  "iso-date-time": "string",
  duration: "string",
  uri: "string",
  "uri-reference": "string",
  "uri-template": "string",
  url: "string",
  email: "string",
  hostname: "string",
  ipv4: "string",
  ipv6: "string",
  regex: "string",
  uuid: "string",
  "json-pointer": "string",
  "json-pointer-uri-fragment": "string",
  "relative-json-pointer": "string",
  byte: "string",
  int32: "number",
  int64: "number",
  float: "number",
  double: "number",
  password: "string",
  binary: "string",
};

// Requiring ajv-formats' formats costs ≈ 1 ms (≈ 2 ms as a process's first require); a validator
// loads it when it first checks a value against a standard format, never before.
const load = lazyRequire(() => import.meta.url);
let standardFormats: Record<FormatName, Format> | undefined;

function standardTest(name: FormatName): (value: unknown) => boolean {
  standardFormats ??= (
    load("ajv-formats/dist/formats") as typeof import("ajv-formats/dist/formats.js")
  ).fullFormats;
  const format = standardFormats[name];
  if (format === true) return () => true;
  const test = typeof format === "object" && !(format instanceof RegExp) ? format.validate : format;
  if (typeof test === "function") return test as (value: unknown) => boolean;
  const pattern = typeof test === "string" ? new RegExp(test) : test;
  return (value) => pattern.test(value as string);
}

function standardFormat(name: FormatName): FormatDefinition {
  let test: ((value: unknown) => boolean) | undefined;
  const validate = (value: unknown) => {
    test ??= standardTest(name);
    return test(value);
  };
  return STANDARD_FORMATS[name] === "number"
    ? { type: "number", validate }
    : { type: "string", validate };
}

let formats: Readonly<Record<string, FormatDefinition>> | undefined;

/**
 * Every format uwf knows: the standard ones (ajv-formats) and `cas-ref`, made on first call
 * (most processes validate nothing). Generated validator code reaches each as
 * `require(FORMATS_MODULE)[name]` (served by the disk cache's require shim from this very
 * object), never as a copy of its pattern: a change of `HASH_PATTERN` or of ajv-formats then
 * applies to cached validators too, and each is a `{ type, validate }` object whatever
 * ajv-formats made it, so the code that calls it does not depend on ajv-formats' version.
 */
export function validatorFormats(): Readonly<Record<string, FormatDefinition>> {
  formats ??= {
    ...Object.fromEntries(
      (Object.keys(STANDARD_FORMATS) as FormatName[]).map((name) => [name, standardFormat(name)]),
    ),
    [CAS_REF_FORMAT]: { type: "string", validate: HASH_PATTERN },
  };
  return formats;
}

/** The module id generated code requires to get `validatorFormats()`; no real package has it. */
export const FORMATS_MODULE = "uwf:validator-formats";

/** The name of every format uwf checks, for messages (no format is loaded). */
export function knownFormatNames(): string[] {
  return [...Object.keys(STANDARD_FORMATS), CAS_REF_FORMAT];
}
