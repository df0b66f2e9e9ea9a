import { sanitizeTerminalText, UwfError } from "@united-workforce/util";
import { defineCommand, result } from "../command.js";
import { reportConfigProblems } from "./report.js";
import { blockText, maskValue, schemaAt, unknownKeyHint } from "./values.js";

export default defineCommand({
  path: ["config", "get"],
  summary: "print one setting (a value, or a whole mapping), secrets masked",
  description:
    'Exits 1 with CONFIG_KEY_NOT_SET when the key has no value, so scripts can test for it. A name holding a dot is written in brackets: agents["my.agent"].command.',
  args: [
    { name: "key", description: "a dotted key, e.g. providers.openai.baseUrl", required: true },
  ],
  examples: ["uwf config get defaultAgent", "uwf config get agents.claude"],
  async run(ctx, [key]) {
    const { configData, getConfigValue, openConfigFile, parseKeyPath } = await import(
      "@united-workforce/store"
    );
    const path = parseKeyPath(key!);
    const config = openConfigFile(ctx.home);
    await reportConfigProblems(ctx, config.file, configData(config));
    const value = getConfigValue(config, path);
    if (value === undefined || value === null) {
      throw new UwfError("CONFIG_KEY_NOT_SET", `${key} is not set in ${config.file}`, {
        hint:
          schemaAt(path) === null
            ? `uwf does not know the key ${key}. ${unknownKeyHint(path)}`
            : `Set it with: uwf config set ${key} <value> (uwf config list shows what is set).`,
      });
    }
    return result({ file: config.file, key: key!, value: maskValue(path, value) }, (d) =>
      sanitizeTerminalText(blockText(d.value)),
    );
  },
});
