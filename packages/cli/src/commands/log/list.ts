import { listLogFiles } from "@united-workforce/util";
import { renderTable } from "../../output/table.js";
import { defineCommand, result } from "../command.js";

export default defineCommand({
  path: ["log", "list"],
  summary: "list the process log files (one per UTC day)",
  async run(ctx) {
    const doc = { files: listLogFiles(ctx.home) };
    return result(doc, (d, view) =>
      d.files.length === 0
        ? "no logs yet"
        : view.tty
          ? renderTable(
              [{ header: "day" }, { header: "bytes", align: "right" }, { header: "file" }],
              d.files.map((f) => [f.date, String(f.bytes), f.path]),
            )
          : d.files.map((f) => `${f.date}  ${f.bytes} bytes  ${f.path}`).join("\n"),
    );
  },
});
