import { defineCommand } from "../command.js";
import { guide } from "./guide.js";

export default defineCommand({
  path: ["prompt", "workflow-authoring"],
  summary: "how to write a workflow YAML: roles, $status exits, the graph, validation",
  async run() {
    const { renderWorkflowAuthoring } = await import("./texts/workflow-authoring.js");
    return guide("workflow-authoring", renderWorkflowAuthoring());
  },
});
