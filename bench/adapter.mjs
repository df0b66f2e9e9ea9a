#!/usr/bin/env node
// A benchmark adapter built with agent-kit: it always answers the next `again` round, so it
// can run on a thread of any length (uwf-mock needs a scripted entry per step).
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { createAgent } = await import(`${root}packages/agent-kit/dist/index.js`);

const agent = createAgent({
  name: "bench-adapter",
  run: async (ctx) => ({
    text: `---\n$status: again\nround: ${ctx.stepIndex + 1}\n---\nround done\n`,
  }),
});
process.exitCode = await agent(process.argv.slice(2));
