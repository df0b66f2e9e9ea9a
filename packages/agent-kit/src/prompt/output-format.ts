import { STATUS_FIELD, SUSPEND } from "@united-workforce/protocol";
import { stringify as stringifyYaml } from "yaml";
import {
  describeSchema,
  isSchemaObject,
  type SchemaField,
  type SchemaObject,
  type SchemaShape,
  type SchemaVariant,
  singleValue,
} from "../schema/shape.js";

export const SCOPE_SENTENCE = "Focus exclusively on YOUR role's deliverable.";

/**
 * The `## Output Format` section every prompt starts with, derived from the role's schema: one
 * block per `$status` variant for a discriminated `oneOf`, one block otherwise, and the
 * `$SUSPEND` exit that every role has.
 */
export function buildOutputFormatInstruction(schema: SchemaObject): string {
  const shape = describeSchema(schema);
  const parts = [
    "## Output Format",
    "Start your reply with a YAML frontmatter block: a line `---`, the fields described below, " +
      "and a closing `---` line. Then write your work as markdown. The engine reads only the " +
      "frontmatter to decide what happens next; the markdown body is kept for people and for " +
      "the roles after you.",
  ];
  if (shape.discriminated) {
    parts.push(
      "Choose exactly ONE of the following variants, by your outcome, and write only the fields listed for it.",
    );
    for (const variant of shape.variants)
      parts.push(renderVariant(variant, `### When \`${STATUS_FIELD}: ${variant.status}\``));
  } else if (shape.open) {
    parts.push(
      "### Frontmatter",
      `Any YAML mapping is accepted. Include a \`${STATUS_FIELD}\` field that names your outcome.`,
    );
  } else {
    parts.push(renderVariant(shape.variants[0]!, "### Frontmatter"));
  }
  parts.push(renderSuspend(), renderRules(shape));
  return parts.join("\n\n");
}

function renderVariant(variant: SchemaVariant, heading: string): string {
  const list = variant.fields.map(describeField).join("\n");
  return `${heading}\n\n${list}\n\n${exampleBlock(variant.fields)}`;
}

function renderSuspend(): string {
  return [
    `### When you need a human: \`${STATUS_FIELD}: ${SUSPEND}\``,
    "If you cannot finish without an answer from a person, stop and reply with only this " +
      "frontmatter. `reason` is the question they will see; the thread waits for their answer.",
    fenced(`---\n${STATUS_FIELD}: ${SUSPEND}\nreason: <your question for the human>\n---`),
  ].join("\n\n");
}

function renderRules(shape: SchemaShape): string {
  const rules = [
    "The frontmatter must be the very first thing in your reply: no text before the opening `---`.",
    shape.open
      ? "Keep field values plain YAML (strings, numbers, lists, mappings)."
      : "Use exactly the field names above; any other field is dropped.",
    `${SCOPE_SENTENCE} Do not do the work of other roles: the workflow hands it to them.`,
  ];
  return `### Rules\n\n${rules.map((rule) => `- ${rule}`).join("\n")}`;
}

function describeField(field: SchemaField): string {
  const marker = field.required ? "required" : "optional";
  const description =
    typeof field.schema.description === "string" ? ` — ${field.schema.description.trim()}` : "";
  return `- \`${field.name}\` (${marker}): ${describeType(field.schema)}${description}`;
}

function describeType(schema: SchemaObject): string {
  const one = singleValue(schema);
  if (one) return `exactly \`${literal(one.value)}\``;
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((v) => `\`${literal(v)}\``).join(", ")}`;
  const types = typeList(schema);
  if (types.length === 0) return "any value";
  return types
    .map((type) => {
      if (type !== "array") return type;
      const items = isSchemaObject(schema.items) ? describeType(schema.items) : "any value";
      return `list of ${items.startsWith("list") ? `(${items})` : items}`;
    })
    .join(" or ");
}

function typeList(schema: SchemaObject): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t) => typeof t === "string");
  if (isSchemaObject(schema.properties)) return ["object"];
  if (isSchemaObject(schema.items)) return ["array"];
  return [];
}

/** A value as it must appear in YAML: `ready`, `"123"`, `true`. */
function literal(value: unknown): string {
  return stringifyYaml(value).trimEnd();
}

function exampleBlock(fields: SchemaField[]): string {
  const lines = fields.flatMap((field) =>
    exampleLines(field.name, field.schema, "", !field.required),
  );
  return fenced(`---\n${lines.join("\n")}\n---`);
}

function exampleLines(
  name: string,
  schema: SchemaObject,
  indent: string,
  optional: boolean,
): string[] {
  const key = `${indent}${literal(name)}:`;
  const note = optional ? "  # optional" : "";
  const one = singleValue(schema);
  if (one) return [`${key} ${literal(one.value)}${note}`];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const choices = schema.enum.map(literal).join(" | ");
    return [
      `${key} ${literal(schema.enum[0])}  # one of: ${choices}${optional ? "; optional" : ""}`,
    ];
  }
  const type = typeList(schema).find((t) => t !== "null");
  if (type === "array") {
    const items = isSchemaObject(schema.items) ? schema.items : {};
    const nested = isSchemaObject(items.properties) ? Object.entries(items.properties) : [];
    if (nested.length > 0) {
      const inner = nested.flatMap(([child, childSchema]) =>
        exampleLines(child, isSchemaObject(childSchema) ? childSchema : {}, `${indent}    `, false),
      );
      inner[0] = `${indent}  - ${inner[0]!.trimStart()}`;
      return [`${key}${note}`, ...inner];
    }
    return [`${key}${note}`, `${indent}  - ${placeholder(items)}`];
  }
  if (type === "object" && isSchemaObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const inner = Object.entries(schema.properties).flatMap(([child, childSchema]) =>
      exampleLines(
        child,
        isSchemaObject(childSchema) ? childSchema : {},
        `${indent}  `,
        !required.has(child),
      ),
    );
    return [`${key}${note}`, ...inner];
  }
  return [`${key} ${placeholder(schema)}${note}`];
}

function placeholder(schema: SchemaObject): string {
  const one = singleValue(schema);
  if (one) return literal(one.value);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return literal(schema.enum[0]);
  const type = typeList(schema).find((t) => t !== "null");
  return `<${type ?? "value"}>`;
}

function fenced(text: string): string {
  return `\`\`\`yaml\n${text}\n\`\`\``;
}
