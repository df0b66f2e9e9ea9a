import { defineCommand } from "../command.js";
import { guide } from "./guide.js";

export default defineCommand({
  path: ["prompt", "adapter-developing"],
  summary: "how to write an adapter: the agent protocol, agent-kit, the config keys",
  async run() {
    const { renderAdapterDeveloping } = await import("./texts/adapter-developing.js");
    return guide("adapter-developing", renderAdapterDeveloping());
  },
});
