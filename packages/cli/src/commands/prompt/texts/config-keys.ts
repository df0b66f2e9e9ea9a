import { CONFIG_SCHEMA } from "@united-workforce/protocol";

/** One key of config.yaml: its dotted path (`agents.<alias>.command`), type and meaning. */
export interface ConfigKey {
  path: string;
  type: string;
  required: boolean;
  description: string;
}

interface SchemaNode {
  type?: string | readonly string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  required?: readonly string[];
  items?: SchemaNode;
  enum?: readonly unknown[];
}

/**
 * What the `<placeholder>` of each map in config.yaml stands for; a map not named here is
 * written `<name>`. Nested maps take the next word (`agentOverrides.<workflow>.<role>`).
 */
const PLACEHOLDERS: Record<string, readonly string[]> = {
  providers: ["provider"],
  models: ["alias"],
  agents: ["alias"],
  agentOverrides: ["workflow", "role"],
  modelOverrides: ["purpose"],
};

/** Every key CONFIG_SCHEMA defines, depth first, in the schema's order. */
export function configKeys(schema: SchemaNode = CONFIG_SCHEMA as SchemaNode): ConfigKey[] {
  const keys: ConfigKey[] = [];
  const visit = (
    node: SchemaNode,
    path: string[],
    root: string,
    depth: number,
    required: boolean,
  ) => {
    // An object with named keys is only a container: its keys get their own rows.
    if (path.length > 0 && !node.properties) {
      keys.push({
        path: path.join("."),
        type: typeName(node),
        required,
        description: node.description ?? "",
      });
    }
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      visit(child, [...path, name], root || name, depth, node.required?.includes(name) ?? false);
    }
    if (typeof node.additionalProperties === "object") {
      const words = PLACEHOLDERS[root] ?? [];
      visit(
        node.additionalProperties,
        [...path, `<${words[depth] ?? "name"}>`],
        root,
        depth + 1,
        false,
      );
    }
  };
  visit(schema, [], "", 0, false);
  return keys;
}

/**
 * Whether `path` names a key of config.yaml: each segment is a property, or any name (a
 * concrete one or a `<placeholder>`) where the schema has a map. A placeholder in place of a
 * fixed property is refused, so `<x>.command` cannot pass for `agents.<alias>.command`.
 */
export function isConfigKey(
  path: string,
  schema: SchemaNode = CONFIG_SCHEMA as SchemaNode,
): boolean {
  let node: SchemaNode | undefined = schema;
  for (const segment of path.split(".")) {
    if (node === undefined) return false;
    const named: SchemaNode | undefined = segment.startsWith("<")
      ? undefined
      : node.properties?.[segment];
    if (named) node = named;
    else if (typeof node.additionalProperties === "object") node = node.additionalProperties;
    else return false;
  }
  return true;
}

function typeName(node: SchemaNode): string {
  // An enum names its values in the description; say only what they are.
  if (node.type === undefined && node.enum?.every((v) => typeof v === "string")) return "string";
  const types = (Array.isArray(node.type) ? node.type : [node.type ?? "any"]).filter(
    (t) => t !== "null",
  );
  if (types.includes("object") && node.additionalProperties !== undefined && !node.properties)
    return "map";
  if (types.includes("array")) return `list of ${node.items?.type ?? "any"}`;
  return types.join(" | ");
}
