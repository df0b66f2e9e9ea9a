import {
  BUILTIN_SCHEMAS,
  type BuiltinNodeKind,
  type CasPutDocument,
  SCHEMA_TYPE,
} from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { parseJsonInput, readInput } from "./read-input.js";

const BUILTIN_KINDS = Object.keys(BUILTIN_SCHEMAS) as BuiltinNodeKind[];

export default defineCommand({
  path: ["cas", "put"],
  summary: "store a JSON node, validated against its schema",
  description:
    'Without --type the input is a whole node {"type": <schema hash>, "payload": …}. With --type it is the payload; the type is a schema node hash, "schema", or a built-in kind (workflow, start, step, text, detail, turn, stepDetail).',
  args: [{ name: "file", description: 'JSON file ("-" or none: stdin)', required: false }],
  options: [
    {
      flags: "-t, --type <type>",
      type: "hash",
      keywords: [SCHEMA_TYPE, ...BUILTIN_KINDS],
      description: "the node's type",
    },
  ],
  examples: ['echo \'{"type":"string"}\' | uwf cas put --type schema'],
  async run(ctx, [file], options) {
    const { cas } = await ctx.store();
    const input = parseJsonInput(await readInput(ctx.cwd, file), file ?? "stdin");
    let type = options.type as string | undefined;
    let payload: unknown = input;
    if (type === undefined) {
      if (!input || typeof input !== "object" || !("type" in input) || !("payload" in input)) {
        throw new UwfError(
          "USAGE",
          'input must be a node {"type": …, "payload": …} when --type is not given',
          {
            hint: "Pass --type <schema hash|schema|workflow|start|step|text|detail|turn|stepDetail> to store a bare payload.",
          },
        );
      }
      type = String((input as { type: unknown }).type);
      payload = (input as { payload: unknown }).payload;
    }
    if (type in BUILTIN_SCHEMAS) type = cas.builtin(type as BuiltinNodeKind);
    const hash =
      type === SCHEMA_TYPE ? await cas.putSchema(payload as never) : await cas.put(type, payload);
    const doc: CasPutDocument = { hash, type };
    return result(doc, (d) => d.hash);
  },
});
