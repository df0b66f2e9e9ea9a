import { isoTime } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["step", "show"],
  summary: "show a step node: links, role, output, agent, usage",
  args: [{ name: "step", type: "hash", description: "step hash" }],
  async run(ctx, [hash]) {
    const { readStep } = await import("@united-workforce/engine");
    const { stringify: stringifyYaml } = await import("yaml");
    const { cas } = await ctx.store();
    const step = await readStep(cas, hash!);
    const output = await cas.getPayload<Record<string, unknown>>(step.output);
    // The node's own epoch-ms fields stay (this is the node as stored); ISO times come beside.
    const doc = {
      hash: hash!,
      ...step,
      startedAt: isoTime(step.startedAtMs),
      completedAt: isoTime(step.completedAtMs),
      outputValue: output,
    };
    return result(doc, (d) => stringifyYaml(d).trimEnd());
  },
});
