import { UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { reportWarnings, saveChange } from "./report.js";

export default defineCommand({
  path: ["config", "unset"],
  summary: "remove one setting (any key, a whole mapping too); the rest is checked and kept",
  description:
    "Removing a key another setting needs (a provider a model names) is refused with the reason, and nothing is written. Removing a key that is not set is not an error.",
  args: [
    { name: "key", description: "a dotted key, e.g. providers.openai.apiKey", required: true },
  ],
  examples: ["uwf config unset providers.openai.apiKey", "uwf config unset agents.old"],
  async run(ctx, [key]) {
    const { checkConfig, configData, deleteConfigValue, openConfigFile, parseKeyPath } =
      await import("@united-workforce/store");
    const path = parseKeyPath(key!);
    const config = openConfigFile(ctx.home);
    const before = checkConfig(configData(config)).errors;
    const removed = deleteConfigValue(config, path);
    if (removed) {
      const warnings = await saveChange(
        config,
        before,
        (problems) =>
          new UwfError(
            "USAGE",
            `refused to remove ${key}, nothing was written to ${config.file}: ${problems.join("; ")}`,
            { hint: "Remove or change what needs it first, then unset it." },
          ),
      );
      reportWarnings(ctx, config.file, warnings);
      ctx.events.emit("config.unset", { key: key! });
    }
    return result({ file: config.file, key: key!, removed }, (d) =>
      d.removed ? `removed ${d.key} from ${d.file}` : `${d.key} was not set in ${d.file}`,
    );
  },
});
