import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["step", "read"],
  summary: "print a step as markdown, or with --prompt the exact prompt its agent received",
  args: [{ name: "step", type: "hash", description: "step hash" }],
  options: [
    { flags: "--prompt", type: "boolean", description: "print the assembled prompt instead" },
  ],
  async run(ctx, [hash], options) {
    const { readStep, renderStep } = await import("@united-workforce/engine");
    const { cas } = await ctx.store();
    const step = await readStep(cas, hash!);
    const markdown = options.prompt
      ? await cas.getText(step.assembledPrompt)
      : await renderStep(cas, hash!, step);
    return result({ hash: hash!, markdown }, (d) => d.markdown);
  },
});
