import { CONFIG_SCHEMA, isPlainObject } from "@united-workforce/protocol";
import {
  docsUrl,
  editDistance,
  isSecretName,
  MASK,
  maskSecret,
  maskSecretsInText,
  UwfError,
} from "@united-workforce/util";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

/**
 * What `uwf config` shows and accepts: secrets masked, values parsed as YAML where the key
 * takes more than a string, keys checked against the config schema.
 */

/**
 * How many keys under each of these top-level maps are names the user chose, not settings:
 * `agents.<alias>`, `agentOverrides.<workflow>.<role>`. A role called `auth` or a provider
 * called `token` is no secret (its value is an alias); the settings inside an alias still are.
 */
const CHOSEN_NAMES: Readonly<Record<string, number>> = {
  providers: 1,
  models: 1,
  agents: 1,
  agentOverrides: 2,
};

/** Whether the value under this key path is a secret (an API key, a token, a password). */
export function isSecretKey(path: readonly string[]): boolean {
  const last = path.length - 1;
  if (last >= 1 && last <= (CHOSEN_NAMES[path[0] ?? ""] ?? 0)) return false;
  return isSecretName(path[last] ?? "");
}

/**
 * A value with every secret in it masked, at any depth: any scalar under a secret's name (a
 * numeric key too), the argument after a flag named like a secret (`args: [--api-key, sk-…]`),
 * and secrets inside text (`maskSecretsInText`).
 */
export function maskValue(path: readonly string[], value: unknown): unknown {
  const secret = isSecretKey(path);
  if (typeof value === "string") return secret ? maskSecret(value) : maskSecretsInText(value);
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const before = index > 0 ? value[index - 1] : undefined;
      const afterSecretFlag =
        typeof before === "string" &&
        /^--?[A-Za-z][\w-]*$/.test(before) &&
        isSecretName(before.replace(/^-+/, ""));
      if (afterSecretFlag && item !== null && typeof item !== "object") {
        return typeof item === "string" ? maskSecret(item) : MASK;
      }
      return maskValue(path, item);
    });
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, maskValue([...path, key], inner)]),
    );
  }
  // A key written as a number (`apiKey: 123…`) is still a key; JSON would also round it.
  if (secret && value !== null && value !== undefined) return MASK;
  return value;
}

/** Every leaf (a scalar, a list, an empty mapping) with its key path, in file order. */
export function leaves(value: unknown, path: string[] = []): { path: string[]; value: unknown }[] {
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length > 0) return entries.flatMap(([key, inner]) => leaves(inner, [...path, key]));
  }
  return path.length === 0 ? [] : [{ path, value }];
}

/** A value as a person reads it on one line: strings bare, anything else as JSON. */
export function inlineText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** A value as `config get` prints it: scalars bare, mappings and lists as YAML. */
export function blockText(value: unknown): string {
  if (value !== null && typeof value === "object") return stringifyYaml(value).trimEnd();
  return inlineText(value);
}

interface SchemaNode {
  type?: string | readonly string[];
  enum?: readonly unknown[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
}

/** The schema of the value at a key path, or null when uwf does not know the key. */
export function schemaAt(path: readonly string[]): SchemaNode | null {
  let node: SchemaNode = CONFIG_SCHEMA as unknown as SchemaNode;
  for (const segment of path) {
    const next =
      node.properties?.[segment] ??
      (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined);
    if (next === undefined) return null;
    node = next;
  }
  return node;
}

/**
 * Why uwf does not know a key path: the deepest part it knows and the keys that may follow
 * it, with a near match when one differs only in case or by a typo's worth.
 */
export function unknownKeyHint(path: readonly string[]): string {
  let depth = path.length - 1;
  while (depth > 0 && schemaAt(path.slice(0, depth)) === null) depth--;
  const parent = schemaAt(path.slice(0, depth));
  const known = Object.keys(parent?.properties ?? {});
  const wrong = path[depth] ?? "";
  const near = known.find(
    (key) => key.toLowerCase() === wrong.toLowerCase() || editDistance(key, wrong) <= 2,
  );
  const where = depth === 0 ? "at the top level" : `under ${path.slice(0, depth).join(".")}`;
  return [
    near ? `Did you mean ${[...path.slice(0, depth), near].join(".")}?` : "",
    known.length > 0 ? `Keys ${where}: ${known.join(", ")}.` : "",
    `${docsUrl("config.md")} lists every key.`,
  ]
    .filter(Boolean)
    .join(" ");
}

/**
 * The value to store for `config set <key> <text>`. A key that takes only a string gets the
 * text as it is (a model named `4o`, a key of digits); any other is parsed as YAML, so
 * `30`, `true`, `[--x, y]` and `{ baseUrl: … }` (and JSON) work.
 */
export function parseConfigValue(text: string, schema: SchemaNode): unknown {
  const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
  const onlyString =
    (types.length > 0 && types.every((type) => type === "string" || type === "null")) ||
    (schema.enum?.every((value) => typeof value === "string") ?? false);
  if (onlyString) return text;
  try {
    // Without the code frame: it quotes the value, which may be a key read from stdin.
    return parseYaml(text, { prettyErrors: false });
  } catch (error) {
    throw new UwfError(
      "USAGE",
      `the value is not valid YAML or JSON: ${(error as Error).message}`,
      {
        hint: "Quote it for your shell, e.g. uwf config set agents.a.args '[--x, y]'.",
      },
    );
  }
}
