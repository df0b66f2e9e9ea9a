import { stringify as stringifyYaml } from "yaml";
import { readStep } from "../../threads/chain.js";
import { defineCommand, result } from "../command.js";
import { openEngine } from "../thread/shared.js";

export default defineCommand({
  path: ["step", "show"],
  summary: "show a step node: links, role, output, agent, usage",
  args: [{ name: "step", type: "hash", description: "step hash" }],
  async run(ctx, [hash]) {
    const engine = openEngine(ctx);
    const step = readStep(engine.cas, hash!);
    const output = engine.cas.getPayload<Record<string, unknown>>(step.output);
    const doc = { hash: hash!, ...step, outputValue: output };
    return result(doc, (d) => stringifyYaml(d).trimEnd());
  },
});
