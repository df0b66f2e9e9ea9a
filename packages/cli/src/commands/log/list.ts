import { defineCommand, result } from "../command.js";
import { listLogFiles } from "./files.js";

export default defineCommand({
  path: ["log", "list"],
  summary: "list the process log files (one per UTC day)",
  async run(ctx) {
    const doc = { files: listLogFiles(ctx.home) };
    return result(doc, (d) =>
      d.files.length === 0
        ? "no logs yet"
        : d.files.map((f) => `${f.date}  ${f.bytes} bytes  ${f.path}`).join("\n"),
    );
  },
});
