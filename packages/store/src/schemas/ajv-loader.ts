import type { JsonSchema } from "@united-workforce/protocol";
import { lazyRequire } from "@united-workforce/util";
import type { AnyValidateFunction } from "ajv/dist/types/index.js";
import { type SchemaDialect, schemaDialect } from "./dialects.js";
import { FORMATS_MODULE, validatorFormats } from "./formats.js";

type AjvInstance = InstanceType<typeof import("ajv/dist/core.js").default>;

// Loaded with `require` on first use: importing ajv costs ≈ 30 ms, and most `uwf` processes
// never validate anything. A static import would make every process pay it. Processes that
// validate a schema an earlier process compiled skip ajv too (see disk-cache.ts).
const load = lazyRequire(() => import.meta.url);
const instances = new Map<SchemaDialect, AjvInstance>();

// Part of the disk cache key (CACHE_FORMAT in disk-cache.ts): change one, bump the other.
// Strict mode off: ajv ignores a keyword or a `format` it does not know, as JSON Schema says an
// annotation may be. A stored workflow's schema must keep compiling whatever uwf learns later;
// `workflow validate` warns about both instead (engine `schema-lint.ts`).
const OPTIONS = { strict: false, allErrors: true, logger: false } as const;

function create(dialect: SchemaDialect): AjvInstance {
  const { _ } = load(
    "ajv/dist/compile/codegen",
  ) as typeof import("ajv/dist/compile/codegen/index.js");
  // `source` keeps the generated code for standalone export; `formats` is how that code reaches
  // non-regexp formats: through the disk cache's require shim.
  const options = { ...OPTIONS, code: { source: true, formats: _`require(${FORMATS_MODULE})` } };
  let ajv: AjvInstance;
  if (dialect === "2020-12") {
    const { default: Ajv2020 } = load("ajv/dist/2020") as typeof import("ajv/dist/2020.js");
    ajv = new Ajv2020(options);
  } else if (dialect === "2019-09") {
    const { default: Ajv2019 } = load("ajv/dist/2019") as typeof import("ajv/dist/2019.js");
    ajv = new Ajv2019(options);
  } else {
    const { default: Ajv } = load("ajv") as typeof import("ajv");
    ajv = new Ajv(options);
  }
  for (const [name, format] of Object.entries(validatorFormats())) ajv.addFormat(name, format);
  return ajv;
}

/** The Ajv instance for the JSON Schema dialect the schema declares (draft-07 by default). */
export function ajvFor(schema: JsonSchema): AjvInstance {
  const dialect = schemaDialect(schema);
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    ajv = create(dialect);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** CommonJS module code of a validator `ajv` compiled (ajv's standalone export). */
export function standaloneCodeOf(ajv: AjvInstance, validate: AnyValidateFunction): string {
  const { default: standaloneCode } = load(
    "ajv/dist/standalone",
  ) as typeof import("ajv/dist/standalone/index.js");
  return standaloneCode(ajv, validate);
}

/** The installed ajv's version (loads only its package.json). */
export function installedAjvVersion(): string {
  return (load("ajv/package.json") as { version: string }).version;
}
