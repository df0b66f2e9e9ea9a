import { EVENT_LEVELS, type EventName, eventSchemas } from "./events.js";
import { patternNoun } from "./string-schemas.js";

interface FieldSchema {
  type?: string | readonly string[];
  const?: unknown;
  enum?: readonly unknown[];
  pattern?: string;
  properties?: Record<string, unknown>;
  items?: FieldSchema;
}

/**
 * docs/events.md: every event, its level, what it says and its fields, generated from the
 * event schemas so the reference cannot drift from what uwf writes.
 */
export function renderEventsReference(): string {
  const schemas = eventSchemas();
  const lines = [
    "# Events",
    "",
    "<!-- Generated from packages/protocol/src/events.ts by `pnpm docs:events`; do not edit. -->",
    "",
    "Everything a run does is an event: a step starting, an agent's output line, a step stored or",
    "failed, a thread waiting or completing, a fan-out's children. Each event has a JSON Schema in",
    "`@united-workforce/protocol` (`eventSchemas()`), and every reader of uwf's events (live",
    "progress, `uwf thread watch` and `join`, `uwf log show -f`, the web view, in the browser too)",
    "checks what it reads against it.",
    "",
    "The process log, `$UWF_HOME/logs/<UTC day>.jsonl`, holds one event per line, led by its",
    "envelope: `ts` (ISO 8601, UTC), `level`, `event` (the name) and `pid` (the process that wrote",
    "it), with `command` (e.g. `thread exec`) on the lines a `uwf` command wrote. Events may gain",
    "fields, never lose or rename one; a field added after an event was first logged is optional,",
    "so logs of an earlier uwf still read. The events of a fan-out's child carry `parent`, the",
    "thread that fanned out.",
    "",
    "| event | level | what it says |",
    "|-------|-------|--------------|",
  ];
  const names = Object.keys(schemas) as EventName[];
  for (const name of names) {
    lines.push(
      `| [\`${name}\`](#${anchor(name)}) | ${EVENT_LEVELS[name]} | ${schemas[name].description} |`,
    );
  }
  for (const name of names) {
    const schema = schemas[name];
    const required = new Set<string>(schema.required);
    lines.push("", `## ${name}`, "", schema.description, "");
    for (const [field, inner] of Object.entries(schema.properties as Record<string, FieldSchema>)) {
      if (field === "event" || field === "ts") continue;
      const optional = required.has(field) ? "" : ", optional";
      lines.push(`- \`${field}\` (${typeName(inner)}${optional})`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function typeName(schema: FieldSchema): string {
  if (schema.enum !== undefined)
    return schema.enum.map((value) => `\`${String(value)}\``).join(" \\| ");
  // A pattern-named string is said by what it holds ("a CAS hash").
  if (schema.pattern !== undefined) return patternNoun(schema.pattern) ?? "string";
  if (schema.properties !== undefined) return "object";
  if (schema.items !== undefined) return `list of ${typeName(schema.items)}`;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.map((type) => (type === "integer" ? "integer" : String(type))).join(" or ");
}

/** GitHub's anchor of a heading: lower case, dots dropped. */
function anchor(name: string): string {
  return name.replaceAll(".", "");
}
