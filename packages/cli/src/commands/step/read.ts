import { readStep } from "../../threads/chain.js";
import { renderStep } from "../../threads/transcript.js";
import { defineCommand, result } from "../command.js";
import { openEngine } from "../thread/shared.js";

export default defineCommand({
  path: ["step", "read"],
  summary: "print a step as markdown, or with --prompt the exact prompt its agent received",
  args: [{ name: "step", type: "hash", description: "step hash" }],
  options: [
    { flags: "--prompt", type: "boolean", description: "print the assembled prompt instead" },
  ],
  async run(ctx, [hash], options) {
    const engine = openEngine(ctx);
    const step = readStep(engine.cas, hash!);
    const markdown = options.prompt
      ? engine.cas.getText(step.assembledPrompt)
      : renderStep(engine.cas, hash!, step);
    return result({ hash: hash!, markdown }, (d) => d.markdown);
  },
});
