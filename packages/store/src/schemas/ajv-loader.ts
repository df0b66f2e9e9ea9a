import { createRequire } from "node:module";
import { CAS_REF_FORMAT, HASH_PATTERN, type JsonSchema } from "@united-workforce/protocol";

type AjvInstance = InstanceType<typeof import("ajv/dist/core.js").default>;
type Dialect = "draft-07" | "2019-09" | "2020-12";

// Loaded with `require` on first use: importing ajv costs ≈ 30 ms, and most `uwf` processes
// never validate anything. A static import would make every process pay it.
const load = createRequire(import.meta.url);
const instances = new Map<Dialect, AjvInstance>();

const OPTIONS = { strict: false, allErrors: true, logger: false } as const;

function dialectOf(schema: JsonSchema): Dialect {
  const declared = schema.$schema;
  if (typeof declared !== "string") return "draft-07";
  if (declared.includes("2020-12")) return "2020-12";
  if (declared.includes("2019-09")) return "2019-09";
  return "draft-07";
}

function create(dialect: Dialect): AjvInstance {
  let ajv: AjvInstance;
  if (dialect === "2020-12") {
    const { default: Ajv2020 } = load("ajv/dist/2020") as typeof import("ajv/dist/2020.js");
    ajv = new Ajv2020(OPTIONS);
  } else if (dialect === "2019-09") {
    const { default: Ajv2019 } = load("ajv/dist/2019") as typeof import("ajv/dist/2019.js");
    ajv = new Ajv2019(OPTIONS);
  } else {
    const { default: Ajv } = load("ajv") as typeof import("ajv");
    ajv = new Ajv(OPTIONS);
  }
  ajv.addFormat(CAS_REF_FORMAT, HASH_PATTERN);
  return ajv;
}

/** The Ajv instance for the JSON Schema dialect the schema declares (draft-07 by default). */
export function ajvFor(schema: JsonSchema): AjvInstance {
  const dialect = dialectOf(schema);
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    ajv = create(dialect);
    instances.set(dialect, ajv);
  }
  return ajv;
}
