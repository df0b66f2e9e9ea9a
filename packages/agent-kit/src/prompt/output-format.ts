import type { ExitOutput, RoleExits, SchemaMap } from "@united-workforce/engine/adapter";
import { isPlainObject, STATUS_FIELD, SUSPEND } from "@united-workforce/protocol";
import { yamlLiteral as literal } from "./yaml-literal.js";

export const SCOPE_SENTENCE = "Focus exclusively on YOUR role's deliverable.";

/** One field of an exit's output, as the instruction lists it. */
interface Field {
  name: string;
  schema: SchemaMap;
  required: boolean;
}

/**
 * The `## Output Format` section every prompt starts with, derived from the role's exits (the
 * engine's reading of its schema, the one workflow validation uses): one block per `$status`
 * variant for a discriminated `oneOf`, one block otherwise, and the `$SUSPEND` exit that every
 * role has.
 */
export function buildOutputFormatInstruction(exits: RoleExits): string {
  const parts = [
    "## Output Format",
    "Start your reply with a YAML frontmatter block: a line `---`, the fields described below, " +
      "and a closing `---` line. Then write your work as markdown. The engine reads only the " +
      "frontmatter to decide what happens next; the markdown body is kept for people and for " +
      "the roles after you.",
  ];
  if (exits.discriminated) {
    parts.push(
      "Choose exactly ONE of the following variants, by your outcome, and write only the fields listed for it.",
    );
    for (const [status, output] of exits.outputs)
      parts.push(renderFields(fieldsOf(output), `### When \`${STATUS_FIELD}: ${status}\``));
  } else {
    // Every status of a flat schema carries the same fields: one block lists them.
    const [output] = exits.outputs.values();
    parts.push(renderFields(output ? fieldsOf(output) : [], "### Frontmatter"));
  }
  parts.push(renderSuspend(), renderRules());
  return parts.join("\n\n");
}

/** `$status` first, then the declared order. */
function fieldsOf(output: ExitOutput): Field[] {
  const names = Object.keys(output.properties).sort((a, b) =>
    a === STATUS_FIELD ? -1 : b === STATUS_FIELD ? 1 : 0,
  );
  return names.map((name) => ({
    name,
    schema: output.properties[name] as SchemaMap,
    required: output.required.includes(name),
  }));
}

function renderFields(fields: Field[], heading: string): string {
  const list = fields.map(describeField).join("\n");
  return `${heading}\n\n${list}\n\n${exampleBlock(fields)}`;
}

function renderSuspend(): string {
  return [
    `### When you need a human: \`${STATUS_FIELD}: ${SUSPEND}\``,
    "If you cannot finish without an answer from a person, stop and reply with only this " +
      "frontmatter. `reason` is the question they will see; the thread waits for their answer.",
    fenced(`---\n${STATUS_FIELD}: ${SUSPEND}\nreason: <your question for the human>\n---`),
  ].join("\n\n");
}

function renderRules(): string {
  const rules = [
    "The frontmatter must be the very first thing in your reply: no text before the opening `---`.",
    "Use exactly the field names above; any other field is dropped.",
    `${SCOPE_SENTENCE} Do not do the work of other roles: the workflow hands it to them.`,
  ];
  return `### Rules\n\n${rules.map((rule) => `- ${rule}`).join("\n")}`;
}

function describeField(field: Field): string {
  const marker = field.required ? "required" : "optional";
  const description =
    typeof field.schema.description === "string" ? ` — ${field.schema.description.trim()}` : "";
  return `- \`${field.name}\` (${marker}): ${describeType(field.schema)}${description}`;
}

function describeType(schema: SchemaMap): string {
  const one = singleValue(schema);
  if (one) return `exactly \`${literal(one.value)}\``;
  if (Array.isArray(schema.enum))
    return `one of ${schema.enum.map((v) => `\`${literal(v)}\``).join(", ")}`;
  const types = typeList(schema);
  if (types.length === 0) return "any value";
  return types
    .map((type) => {
      if (type !== "array") return type;
      const items = isPlainObject(schema.items) ? describeType(schema.items) : "any value";
      return `list of ${items.startsWith("list") ? `(${items})` : items}`;
    })
    .join(" or ");
}

function typeList(schema: SchemaMap): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t) => typeof t === "string");
  if (isPlainObject(schema.properties)) return ["object"];
  if (isPlainObject(schema.items)) return ["array"];
  return [];
}

function exampleBlock(fields: Field[]): string {
  const lines = fields.flatMap((field) =>
    exampleLines(field.name, field.schema, "", !field.required),
  );
  return fenced(`---\n${lines.join("\n")}\n---`);
}

function exampleLines(
  name: string,
  schema: SchemaMap,
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
    const items = isPlainObject(schema.items) ? schema.items : {};
    const nested = isPlainObject(items.properties) ? Object.entries(items.properties) : [];
    if (nested.length > 0) {
      const inner = nested.flatMap(([child, childSchema]) =>
        exampleLines(child, isPlainObject(childSchema) ? childSchema : {}, `${indent}    `, false),
      );
      inner[0] = `${indent}  - ${inner[0]!.trimStart()}`;
      return [`${key}${note}`, ...inner];
    }
    return [`${key}${note}`, `${indent}  - ${placeholder(items)}`];
  }
  if (type === "object" && isPlainObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const inner = Object.entries(schema.properties).flatMap(([child, childSchema]) =>
      exampleLines(
        child,
        isPlainObject(childSchema) ? childSchema : {},
        `${indent}  `,
        !required.has(child),
      ),
    );
    return [`${key}${note}`, ...inner];
  }
  return [`${key} ${placeholder(schema)}${note}`];
}

function placeholder(schema: SchemaMap): string {
  const one = singleValue(schema);
  if (one) return literal(one.value);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return literal(schema.enum[0]);
  const type = typeList(schema).find((t) => t !== "null");
  return `<${type ?? "value"}>`;
}

/** The single value a property schema allows (`const` or a one-value `enum`), if any. */
function singleValue(schema: SchemaMap): { value: unknown } | null {
  if ("const" in schema) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] };
  return null;
}

function fenced(text: string): string {
  return `\`\`\`yaml\n${text}\n\`\`\``;
}
