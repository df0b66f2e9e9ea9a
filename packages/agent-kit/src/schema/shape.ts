import { STATUS_FIELD } from "@united-workforce/protocol";

export type SchemaObject = Record<string, unknown>;

export interface SchemaField {
  name: string;
  schema: SchemaObject;
  required: boolean;
}

/** One outcome of a role: the `$status` value it declares (null when it is not one value). */
export interface SchemaVariant {
  status: string | null;
  fields: SchemaField[];
}

/**
 * What a role schema asks the agent for, as the prompt and the extractor need it.
 * `discriminated`: a `oneOf`/`anyOf` whose variants each fix `$status` to one value.
 * `open`: the schema declares no properties at all, so nothing can be filtered out.
 */
export interface SchemaShape {
  discriminated: boolean;
  variants: SchemaVariant[];
  open: boolean;
}

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The single value a property schema allows (`const` or a one-value `enum`), if any. */
export function singleValue(schema: unknown): { value: unknown } | null {
  if (!isSchemaObject(schema)) return null;
  if ("const" in schema) return { value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return { value: schema.enum[0] };
  return null;
}

export function describeSchema(schema: SchemaObject): SchemaShape {
  const sharedProps = propertiesOf(schema);
  const sharedRequired = requiredOf(schema);
  const union = unionOf(schema);

  if (union && union.length > 0 && union.every(hasFixedStatus)) {
    const variants = union.map((variant) => {
      const status = singleValue(propertiesOf(variant)[STATUS_FIELD])!.value;
      const required = new Set([...sharedRequired, ...requiredOf(variant)]);
      return {
        status: String(status),
        fields: orderFields(mergeProps(sharedProps, propertiesOf(variant)), required),
      };
    });
    return { discriminated: true, variants, open: false };
  }

  let props = sharedProps;
  const required = new Set(sharedRequired);
  if (union && union.length > 0) {
    // Not discriminated: one block with every field; required only where every variant says so.
    for (const variant of union) props = mergeProps(props, propertiesOf(variant));
    const each = union.map((variant) => new Set(requiredOf(variant)));
    for (const name of each[0] ?? []) if (each.every((set) => set.has(name))) required.add(name);
  }
  const fields = orderFields(props, required);
  const status = singleValue(props[STATUS_FIELD]);
  return {
    discriminated: false,
    variants: [{ status: status ? String(status.value) : null, fields }],
    open: fields.length === 0,
  };
}

/** The variant an output belongs to, by its `$status`; the only variant of a flat schema. */
export function variantFor(shape: SchemaShape, status: unknown): SchemaVariant | null {
  if (!shape.discriminated) return shape.variants[0] ?? null;
  return shape.variants.find((variant) => variant.status === status) ?? null;
}

/** Every `$status` value the schema declares, for messages. */
export function declaredStatuses(shape: SchemaShape): string[] {
  if (shape.discriminated) return shape.variants.map((variant) => variant.status!);
  const status = shape.variants[0]?.fields.find((field) => field.name === STATUS_FIELD);
  if (!status) return [];
  const one = singleValue(status.schema);
  if (one) return [String(one.value)];
  return Array.isArray(status.schema.enum) ? status.schema.enum.map(String) : [];
}

function unionOf(schema: SchemaObject): SchemaObject[] | null {
  const union = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : null;
  return union ? union.filter(isSchemaObject) : null;
}

function hasFixedStatus(variant: SchemaObject): boolean {
  return singleValue(propertiesOf(variant)[STATUS_FIELD]) !== null;
}

function propertiesOf(schema: SchemaObject): Record<string, SchemaObject> {
  const props = schema.properties;
  if (!isSchemaObject(props)) return {};
  const out: Record<string, SchemaObject> = {};
  for (const [name, value] of Object.entries(props)) out[name] = isSchemaObject(value) ? value : {};
  return out;
}

function requiredOf(schema: SchemaObject): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((n) => typeof n === "string") : [];
}

/** Variant properties refine shared ones of the same name. */
function mergeProps(
  base: Record<string, SchemaObject>,
  extra: Record<string, SchemaObject>,
): Record<string, SchemaObject> {
  const out = { ...base };
  for (const [name, schema] of Object.entries(extra))
    out[name] = { ...(out[name] ?? {}), ...schema };
  return out;
}

/** `$status` first, then the declared order. */
function orderFields(props: Record<string, SchemaObject>, required: Set<string>): SchemaField[] {
  const names = Object.keys(props).sort((a, b) =>
    a === STATUS_FIELD ? -1 : b === STATUS_FIELD ? 1 : 0,
  );
  return names.map((name) => ({ name, schema: props[name]!, required: required.has(name) }));
}
