import { type FromSchema, unsupportedKeywords } from "./from-schema.js";
import { isPlainObject } from "./plain-object.js";
import { patternNoun } from "./string-schemas.js";

/**
 * Checks a value against one of protocol's JSON Schemas: the thread pointer, documents, events.
 * Written here rather than taken from ajv because it runs where ajv costs too much or cannot
 * go: `thread list` checks thousands of pointers, and the web view's browser script checks
 * the events it reads. It reads exactly the keywords `FromSchema` reads (`type`, also a list
 * and `integer`; `const`, `enum`, `anyOf`, `oneOf`, `properties`, `required`,
 * `additionalProperties` as a schema or a boolean, `items`) and the value checks it knows
 * (`pattern`, `minimum`, `maximum`, `minLength`, `minItems`; `format`, `$id`, `title` and
 * `description` are notes), with JSON Schema's meaning. A schema holding any other keyword is
 * refused with an error on first use, so none is ever half-checked.
 *
 * A schema is compiled once (kept per schema object), and a value that matches allocates
 * nothing: only a mismatch builds messages.
 */

/** Whether `value` is what `schema` describes; throws on a schema this checker cannot read. */
export function matchesSchema<S extends object>(schema: S, value: unknown): value is FromSchema<S> {
  return compiled(schema).test(value);
}

/**
 * What is wrong with `value` by `schema` (empty: nothing), one sentence per problem naming
 * the place, what was found and what was expected: "`suspended.kind` is \"x\", not question,
 * failure or budget". Throws on a schema this checker cannot read.
 */
export function schemaMismatches(schema: object, value: unknown): string[] {
  const check = compiled(schema);
  const problems: string[] = [];
  if (!check.test(value)) explain(check, value, [], problems);
  return problems;
}

const NULL = 1;
const BOOLEAN = 2;
const INTEGER = 4;
const FRACTION = 8;
const STRING = 16;
const ARRAY = 32;
const OBJECT = 64;

const TYPE_BITS: ReadonlyMap<unknown, number> = new Map([
  ["null", NULL],
  ["boolean", BOOLEAN],
  ["integer", INTEGER],
  ["number", INTEGER | FRACTION],
  ["string", STRING],
  ["array", ARRAY],
  ["object", OBJECT],
]);

type Test = (value: unknown) => boolean;

/** A schema ready to check values with: its keywords read once. */
interface Check extends Keywords {
  /** Whether a value matches: only the tests of the keywords the schema has, composed once. */
  test: Test;
  /** The test of every keyword but `type`; null when there is none. */
  rest: Test | null;
}

interface Keywords {
  /** The bits of the types allowed; 0 when the schema names none. */
  types: number;
  hasConstant: boolean;
  constant: unknown;
  choices: readonly unknown[] | null;
  anyOf: readonly Check[] | null;
  oneOf: readonly Check[] | null;
  properties: readonly Property[];
  /** `additionalProperties`: undefined (or true) allows any other key. */
  additional: Check | boolean | undefined;
  /** The keys `properties` names, for `additionalProperties`. */
  known: ReadonlySet<string>;
  items: Check | null;
  pattern: RegExp | null;
  patternSource: string;
  minimum: number;
  maximum: number;
  minLength: number;
  minItems: number;
}

interface Property {
  name: string;
  check: Check;
  required: boolean;
  /** The name is also one of Object.prototype's, so only an own key counts. */
  inherited: boolean;
}

/** Matches anything: the schema of a required key that `properties` does not describe. */
const ANY = check({}, "");

const cache = new WeakMap<object, Check>();

function compiled(schema: object): Check {
  const known = cache.get(schema);
  if (known !== undefined) return known;
  const unsupported = unsupportedKeywords(schema);
  if (unsupported.length > 0) {
    throw new Error(
      `the schema uses keywords the schema check does not read: ${unsupported.join(", ")}`,
    );
  }
  return compile(schema, "");
}

function compile(schema: unknown, at: string): Check {
  if (!isPlainObject(schema)) throw invalid(at, "is not a schema (a JSON object)");
  let done = cache.get(schema);
  if (done === undefined) {
    done = check(schema, at);
    cache.set(schema, done);
  }
  return done;
}

/** One schema's keywords, read and checked; nested schemas compiled (and kept) on the way. */
function check(schema: Record<string, unknown>, at: string): Check {
  const required = names(schema.required, `${at}/required`);
  const properties: Property[] = [];
  if (schema.properties !== undefined) {
    if (!isPlainObject(schema.properties)) throw invalid(`${at}/properties`, "is not an object");
    for (const [name, inner] of Object.entries(schema.properties)) {
      const check = compile(inner, `${at}/properties/${name}`);
      properties.push(property(name, check, required.includes(name)));
    }
  }
  const known = new Set(properties.map((property) => property.name));
  for (const name of required) if (!known.has(name)) properties.push(property(name, ANY, true));
  const { additionalProperties: additional, pattern } = schema;
  if (pattern !== undefined && typeof pattern !== "string") {
    throw invalid(`${at}/pattern`, "is not a string");
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) {
    throw invalid(`${at}/enum`, "is not a list");
  }
  const keywords: Keywords = {
    types: schema.type === undefined ? 0 : typeBits(schema.type, at),
    hasConstant: Object.hasOwn(schema, "const"),
    constant: schema.const,
    choices: (schema.enum as unknown[] | undefined) ?? null,
    anyOf: branches(schema.anyOf, `${at}/anyOf`),
    oneOf: branches(schema.oneOf, `${at}/oneOf`),
    properties,
    additional:
      additional === undefined || typeof additional === "boolean"
        ? additional
        : compile(additional, `${at}/additionalProperties`),
    known,
    items: schema.items === undefined ? null : compile(schema.items, `${at}/items`),
    pattern: pattern === undefined ? null : new RegExp(pattern, "u"),
    patternSource: pattern ?? "",
    minimum: bound(schema.minimum, `${at}/minimum`, Number.NEGATIVE_INFINITY),
    maximum: bound(schema.maximum, `${at}/maximum`, Number.POSITIVE_INFINITY),
    minLength: bound(schema.minLength, `${at}/minLength`, 0),
    minItems: bound(schema.minItems, `${at}/minItems`, 0),
  };
  const rest = testOf(keywords);
  const test = keywords.types === 0 ? (rest ?? (() => true)) : typeTest(keywords.types, rest);
  return { ...keywords, test, rest };
}

function property(name: string, check: Check, required: boolean): Property {
  return { name, check, required, inherited: name in Object.prototype };
}

function typeBits(type: unknown, at: string): number {
  let bits = 0;
  for (const name of Array.isArray(type) ? type : [type]) {
    const bit = TYPE_BITS.get(name);
    if (bit === undefined)
      throw invalid(`${at}/type`, `names no JSON type: ${JSON.stringify(name)}`);
    bits |= bit;
  }
  return bits;
}

function branches(list: unknown, at: string): Check[] | null {
  if (list === undefined) return null;
  if (!Array.isArray(list) || list.length === 0) throw invalid(at, "is not a list of schemas");
  return list.map((inner, i) => compile(inner, `${at}/${i}`));
}

function names(list: unknown, at: string): string[] {
  if (list === undefined) return [];
  if (!Array.isArray(list) || !list.every((name) => typeof name === "string")) {
    throw invalid(at, "is not a list of names");
  }
  return list;
}

function bound(value: unknown, at: string, none: number): number {
  if (value === undefined) return none;
  if (typeof value !== "number") throw invalid(at, "is not a number");
  return value;
}

function invalid(at: string, what: string): Error {
  return new Error(`the schema's ${at === "" ? "root" : at} ${what}`);
}

// ─── Matching: the fast path, allocating nothing ──────────────────────────────────────────────

function bitsOf(value: unknown): number {
  switch (typeof value) {
    case "string":
      return STRING;
    case "number":
      return Number.isInteger(value) ? INTEGER : Number.isFinite(value) ? FRACTION : 0;
    case "boolean":
      return BOOLEAN;
    case "object":
      return value === null ? NULL : Array.isArray(value) ? ARRAY : OBJECT;
    default:
      return 0;
  }
}

/**
 * The test of a schema's keywords but `type`, composed of closures for only the keywords it
 * has, or null when it has none (then a property's type, tested inline, is all there is).
 */
function testOf(keywords: Keywords): Test | null {
  const { pattern, minLength, minimum, maximum, minItems, items, anyOf, oneOf } = keywords;
  const tests: Test[] = [];
  if (keywords.hasConstant) {
    const constant = keywords.constant;
    tests.push((value) => sameJson(constant, value));
  }
  if (keywords.choices !== null) {
    const choices = keywords.choices;
    tests.push((value) => isOneOf(choices, value));
  }
  if (pattern !== null) tests.push((value) => typeof value !== "string" || pattern.test(value));
  if (minLength > 0) {
    tests.push((value) => typeof value !== "string" || codePoints(value) >= minLength);
  }
  if (minimum > Number.NEGATIVE_INFINITY || maximum < Number.POSITIVE_INFINITY) {
    tests.push((value) => typeof value !== "number" || (value >= minimum && value <= maximum));
  }
  if (minItems > 0) tests.push((value) => !Array.isArray(value) || value.length >= minItems);
  if (items !== null) tests.push(itemsTest(items.test));
  if (keywords.properties.length > 0 || restricts(keywords.additional)) {
    tests.push(objectTest(keywords));
  }
  if (anyOf !== null) tests.push((value) => countMatches(anyOf, value, 1) === 1);
  if (oneOf !== null) tests.push((value) => countMatches(oneOf, value, 2) === 1);
  return allTests(tests);
}

function allTests(tests: readonly Test[]): Test | null {
  const [first, second, third] = tests;
  if (first === undefined) return null;
  if (second === undefined) return first;
  if (third === undefined) return (value) => first(value) && second(value);
  if (tests.length === 3) return (value) => first(value) && second(value) && third(value);
  return (value) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(value)) return false;
    return true;
  };
}

/** The test of `type` and then `rest`, the schema's other keywords. */
function typeTest(bits: number, rest: Test | null): Test {
  if (rest === null) {
    if (bits === STRING) return (value) => typeof value === "string";
    if (bits === OBJECT) return isPlainObject;
    return (value) => (bits & bitsOf(value)) !== 0;
  }
  if (bits === STRING) return (value) => typeof value === "string" && rest(value);
  if (bits === OBJECT) return (value) => isPlainObject(value) && rest(value);
  return (value) => (bits & bitsOf(value)) !== 0 && rest(value);
}

function itemsTest(test: Test): Test {
  return (value) => {
    if (!Array.isArray(value)) return true;
    for (let i = 0; i < value.length; i++) if (!test(value[i])) return false;
    return true;
  };
}

function restricts(additional: Check | boolean | undefined): additional is Check | false {
  return additional !== undefined && additional !== true;
}

function objectTest(keywords: Keywords): Test {
  const { properties, known, additional } = keywords;
  const names = properties.map((property) => property.name);
  // Each property's type is tested here, without a call: most are `{ type: "string" }`.
  const types = properties.map((property) => property.check.types);
  const rests = properties.map((property) => property.check.rest);
  const required = properties.map((property) => property.required);
  const inherited = properties.map((property) => property.inherited);
  const others: Test | null = !restricts(additional)
    ? null
    : additional === false
      ? () => false
      : additional.test;
  return (value) => {
    if (!isPlainObject(value)) return true;
    let present = 0;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const inner = inherited[i] && !Object.hasOwn(value, name) ? undefined : value[name];
      // Absent, or set to undefined, which JSON cannot say.
      if (inner === undefined) {
        if (required[i]) return false;
      } else {
        present++;
        const bits = types[i]!;
        if (bits !== 0 && (bits & bitsOf(inner)) === 0) return false;
        const rest = rests[i]!;
        if (rest !== null && !rest(inner)) return false;
      }
    }
    if (others === null) return true;
    // As many keys as properties found: there is no other (the usual case, and no Set lookups).
    let keys = 0;
    for (const _ in value) keys++;
    if (keys === present) return true;
    for (const key in value) {
      if (known.has(key) || !Object.hasOwn(value, key)) continue;
      if (!others(value[key])) return false;
    }
    return true;
  };
}

/** A key's value; undefined when it is absent (or set to undefined, which JSON cannot say). */
function fieldOf(value: Record<string, unknown>, property: Property): unknown {
  if (property.inherited && !Object.hasOwn(value, property.name)) return undefined;
  return value[property.name];
}

/** How many of `checks` match, counting no further than `enough`. */
function countMatches(checks: readonly Check[], value: unknown, enough: number): number {
  let count = 0;
  for (let i = 0; i < checks.length && count < enough; i++) {
    if (checks[i]!.test(value)) count++;
  }
  return count;
}

function isOneOf(choices: readonly unknown[], value: unknown): boolean {
  for (let i = 0; i < choices.length; i++) if (sameJson(choices[i], value)) return true;
  return false;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const other = b as Record<string, unknown>;
  return keys.every(
    (key) => Object.hasOwn(other, key) && sameJson((a as Record<string, unknown>)[key], other[key]),
  );
}

/** The length JSON Schema means: characters, not UTF-16 units. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdbff || i + 1 === text.length) count++;
    else {
      const next = text.charCodeAt(i + 1);
      count++;
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

// ─── Explaining: only for a value that does not match ─────────────────────────────────────────

type Path = readonly (string | number)[];

function explain(check: Check, value: unknown, path: Path, problems: string[]): void {
  const before = problems.length;
  if (check.types !== 0 && (check.types & bitsOf(value)) === 0) {
    problems.push(`${nameOf(path)} is ${shown(value)}, not ${typeNames(check.types)}`);
    return;
  }
  if (
    (check.hasConstant && !sameJson(check.constant, value)) ||
    (check.choices !== null && !isOneOf(check.choices, value))
  ) {
    problems.push(`${nameOf(path)} is ${shown(value)}, not ${expected(check)}`);
    return;
  }
  if (typeof value === "string") explainString(check, value, path, problems);
  else if (typeof value === "number") explainNumber(check, value, path, problems);
  else if (Array.isArray(value)) explainArray(check, value, path, problems);
  else if (isPlainObject(value)) explainObject(check, value, path, problems);
  if (check.anyOf !== null && countMatches(check.anyOf, value, 1) === 0) {
    explainNone(check.anyOf, value, path, problems);
  }
  if (check.oneOf !== null) {
    const count = countMatches(check.oneOf, value, 2);
    if (count === 0) explainNone(check.oneOf, value, path, problems);
    if (count > 1) {
      problems.push(
        `${nameOf(path)} is ${shown(value)}, which fits more than one of its choices (${check.oneOf.map(expected).join("; ")}), not exactly one`,
      );
    }
  }
  if (problems.length === before) {
    problems.push(`${nameOf(path)} is ${shown(value)}, not ${expected(check)}`);
  }
}

function explainString(check: Check, value: string, path: Path, problems: string[]): void {
  if (check.pattern !== null && !check.pattern.test(value)) {
    const noun = patternNoun(check.patternSource);
    problems.push(
      noun === null
        ? `${nameOf(path)} is ${shown(value)}, which does not match /${check.patternSource}/`
        : `${nameOf(path)} is ${shown(value)}, not ${noun}`,
    );
  }
  if (codePoints(value) < check.minLength) {
    problems.push(
      `${nameOf(path)} is ${shown(value)}, shorter than ${plural(check.minLength, "character")}`,
    );
  }
}

function explainNumber(check: Check, value: number, path: Path, problems: string[]): void {
  if (value < check.minimum) {
    problems.push(`${nameOf(path)} is ${value}, less than ${check.minimum}`);
  }
  if (value > check.maximum) {
    problems.push(`${nameOf(path)} is ${value}, more than ${check.maximum}`);
  }
}

function explainArray(check: Check, value: unknown[], path: Path, problems: string[]): void {
  if (value.length < check.minItems) {
    problems.push(
      `${nameOf(path)} has ${plural(value.length, "item")}, fewer than ${check.minItems}`,
    );
  }
  if (check.items === null) return;
  for (let i = 0; i < value.length; i++) {
    if (!check.items.test(value[i])) explain(check.items, value[i], [...path, i], problems);
  }
}

function explainObject(
  check: Check,
  value: Record<string, unknown>,
  path: Path,
  problems: string[],
): void {
  for (const property of check.properties) {
    const inner = fieldOf(value, property);
    const at = [...path, property.name];
    if (inner === undefined) {
      if (property.required) problems.push(`${nameOf(at)} is missing`);
    } else if (!property.check.test(inner)) {
      explain(property.check, inner, at, problems);
    }
  }
  const { additional } = check;
  if (additional === undefined || additional === true) return;
  for (const key of Object.keys(value)) {
    if (check.known.has(key)) continue;
    if (additional === false) {
      problems.push(
        `${path.length === 0 ? "the value" : nameOf(path)} has a field it does not allow: ${nameOf([key])}`,
      );
    } else if (!additional.test(value[key])) {
      explain(additional, value[key], [...path, key], problems);
    }
  }
}

/**
 * None of the choices matches. When only one of them is of the value's type, its own problems
 * say best what is wrong (an object that is nearly a suspension); otherwise list the choices.
 */
function explainNone(choices: readonly Check[], value: unknown, path: Path, problems: string[]) {
  const bits = bitsOf(value);
  const fitting = choices.filter((choice) => choice.types === 0 || (choice.types & bits) !== 0);
  if (fitting.length === 1) explain(fitting[0]!, value, path, problems);
  else problems.push(`${nameOf(path)} is ${shown(value)}, not ${orList(choices.map(expected))}`);
}

/** What a schema wants, in words: its constant, choices, pattern's name or types. */
function expected(check: Check): string {
  if (check.hasConstant) return literal(check.constant);
  if (check.choices !== null) return orList(check.choices.map(literal));
  const noun = check.pattern === null ? null : patternNoun(check.patternSource);
  if (noun !== null) return noun;
  if (check.types !== 0) return typeNames(check.types);
  if (check.anyOf !== null) return orList(check.anyOf.map(expected));
  if (check.oneOf !== null) return orList(check.oneOf.map(expected));
  return "what its schema describes";
}

const TYPE_NAMES: readonly [number, string][] = [
  [STRING, "a string"],
  [INTEGER | FRACTION, "a number"],
  [INTEGER, "an integer"],
  [BOOLEAN, "a boolean"],
  [ARRAY, "an array"],
  [OBJECT, "an object"],
  [NULL, "null"],
];

function typeNames(bits: number): string {
  const words: string[] = [];
  let left = bits;
  for (const [bit, name] of TYPE_NAMES) {
    if ((left & bit) === bit) {
      words.push(name);
      left &= ~bit;
    }
  }
  return orList(words);
}

/** A found value, short: strings quoted (and cut), containers by kind. */
function shown(value: unknown): string {
  if (typeof value === "string") {
    return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value);
  }
  if (Array.isArray(value)) return value.length === 0 ? "an empty array" : "an array";
  if (isPlainObject(value)) return "an object";
  if (
    typeof value === "number" ||
    typeof value === "boolean" ||
    value === null ||
    value === undefined
  ) {
    return String(value);
  }
  return `a ${typeof value}`;
}

/** A schema's constant or choice: strings bare, as in "idle, suspended or completed". */
function literal(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function nameOf(path: Path): string {
  if (path.length === 0) return "the value";
  let name = "";
  for (const part of path) {
    if (typeof part === "number") name += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) name += name === "" ? part : `.${part}`;
    else name += `[${JSON.stringify(part)}]`;
  }
  return `\`${name}\``;
}

function orList(words: readonly string[]): string {
  return words.length <= 1
    ? (words[0] ?? "nothing")
    : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
