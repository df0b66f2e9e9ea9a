import { defineCommand } from "../command.js";
import { guide } from "./guide.js";

export default defineCommand({
  path: ["prompt", "bootstrap"],
  summary: "how to install uwf on a fresh machine and verify that it works",
  async run() {
    const { renderBootstrap } = await import("./texts/bootstrap.js");
    return guide("bootstrap", renderBootstrap());
  },
});
