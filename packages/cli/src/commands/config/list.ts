import { sanitizeTerminalText } from "@united-workforce/util";
import { renderTable } from "../../output/table.js";
import { defineCommand, result } from "../command.js";
import { reportConfigProblems } from "./report.js";
import { inlineText, leaves, maskValue } from "./values.js";

export default defineCommand({
  path: ["config", "list"],
  summary: "show every setting in config.yaml, secrets masked",
  description:
    "One `key = value` line per setting, keys dotted as `uwf config get` and `set` take them. API keys and other secrets (keys named like apiKey, token, secret, password, auth; passwords and secret parameters in URLs; the values of flags named like secrets) are masked; read the file itself if you must see them. When UWF_STORE overrides `store:`, a note on stderr says so.",
  examples: ["uwf config list", "uwf config list --format json"],
  async run(ctx) {
    const { configData, formatKeyPath, openConfigFile } = await import("@united-workforce/store");
    const config = openConfigFile(ctx.home);
    const data = configData(config);
    await reportConfigProblems(ctx, config.file, data);
    // The list shows the file, but UWF_STORE decides the store: say so where it does.
    const { storeOverrideNote } = await import("../store/effective.js");
    const note = await storeOverrideNote(ctx.home, data, ctx.env);
    if (note !== null) ctx.progress(`note: ${note}`);
    const settings = leaves(data).map(({ path, value }) => ({
      key: formatKeyPath(path),
      value: maskValue(path, value),
    }));
    return result({ file: config.file, exists: config.exists, settings }, (d, view) => {
      if (d.settings.length === 0) {
        return d.exists
          ? `${d.file} has no settings`
          : `no ${d.file} yet: \`uwf setup\` writes one, or \`uwf config set <key> <value>\``;
      }
      if (view.tty) {
        return renderTable(
          [{ header: "key" }, { header: "value" }],
          d.settings.map((s) => [s.key, sanitizeTerminalText(inlineText(s.value))]),
        );
      }
      return d.settings
        .map((s) => `${s.key} = ${sanitizeTerminalText(inlineText(s.value))}`)
        .join("\n");
    });
  },
});
